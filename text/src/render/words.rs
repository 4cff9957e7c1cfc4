//! Spelled forms: the NATO spelling alphabet and the digit words of the most spoken
//! languages (native script and common romanisation), read back as letters and digits.

use super::project::word_key;
use crate::views::LANGS;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Digit words zero to nine, `|` between spellings of one digit, per language of
/// [`LANGS`].
const DIGITS: &[&[&str; 10]] = &[
    &[
        "zero|oh|nought",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
    ],
    &[
        "零|〇|ling",
        "一|yi",
        "二|两|er|liang",
        "三|san",
        "四|si",
        "五|wu",
        "六|liu",
        "七|qi",
        "八|ba",
        "九|jiu",
    ],
    &[
        "शून्य|shunya|shoonya|sunya",
        "एक|ek",
        "दो|do",
        "तीन|teen|tin",
        "चार|char|chaar",
        "पाँच|पांच|panch|paanch",
        "छह|छः|chhah|chhe|chah|cheh",
        "सात|saat|sat",
        "आठ|aath|ath",
        "नौ|nau|nao",
    ],
    &[
        "cero",
        "uno|una|un",
        "dos",
        "tres",
        "cuatro",
        "cinco",
        "seis",
        "siete",
        "ocho",
        "nueve",
    ],
    &[
        "zero", "un|une", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf",
    ],
    &[
        "صفر|sifr",
        "واحد|wahid",
        "اثنان|اثنين|ithnan|ithnayn",
        "ثلاثة|thalatha",
        "أربعة|اربعة|arbaa",
        "خمسة|khamsa",
        "ستة|sitta",
        "سبعة|saba",
        "ثمانية|thamaniya",
        "تسعة|tisa",
    ],
    &[
        "শূন্য|shunno",
        "এক|ek",
        "দুই|dui",
        "তিন|tin",
        "চার|char",
        "পাঁচ|pach",
        "ছয়|ছয়|choy",
        "সাত|sat",
        "আট|at",
        "নয়|নয়|noy",
    ],
    &[
        "zero",
        "um|uma",
        "dois|duas",
        "tres",
        "quatro",
        "cinco",
        "seis",
        "sete",
        "oito",
        "nove",
    ],
    &[
        "ноль|нуль|nol",
        "один|одна|odin",
        "два|две|dva",
        "три|tri",
        "четыре|chetyre",
        "пять|pyat",
        "шесть|shest",
        "семь|sem",
        "восемь|vosem",
        "девять|devyat",
    ],
    &[
        "صفر|sifar",
        "ایک|ek",
        "دو|do",
        "تین|teen",
        "چار|char",
        "پانچ|panch",
        "چھ|chay",
        "سات|saat",
        "آٹھ|aath",
        "نو|nau",
    ],
    &[
        "nol|kosong",
        "satu",
        "dua",
        "tiga",
        "empat",
        "lima",
        "enam",
        "tujuh",
        "delapan",
        "sembilan",
    ],
    &[
        "null",
        "eins|ein",
        "zwei|zwo",
        "drei",
        "vier",
        "fuenf|funf",
        "sechs",
        "sieben",
        "acht",
        "neun",
    ],
    &[
        "零|〇|zero|rei",
        "一|ichi",
        "二|ni",
        "三|san",
        "四|yon|shi",
        "五|go",
        "六|roku",
        "七|nana|shichi",
        "八|hachi",
        "九|kyu|kyuu|ku",
    ],
    &[
        "zero", "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove",
    ],
];

/// The NATO alphabet (with its common variants), `a` to `z`.
const NATO: [&str; 26] = [
    "alfa|alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett|juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey|whisky",
    "xray|x-ray",
    "yankee",
    "zulu",
];

/// A word table: normalised word to the letter or digit it spells.
pub(crate) type Table = HashMap<String, char>;

fn add(t: &mut Table, spellings: &str, c: char) {
    for w in spellings.split('|') {
        let key = word_key(&w.replace('-', ""));
        if !key.is_empty() {
            t.insert(key, c);
        }
    }
}

/// Every word of the tables, with the character it spells in each table by index.
pub(crate) fn index() -> &'static HashMap<String, Vec<Option<char>>> {
    static INDEX: OnceLock<HashMap<String, Vec<Option<char>>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let all = tables();
        let mut out: HashMap<String, Vec<Option<char>>> = HashMap::new();
        for (t, table) in all.iter().enumerate() {
            for (w, &c) in table {
                let slot = out
                    .entry(w.clone())
                    .or_insert_with(|| vec![None; all.len()]);
                if let Some(s) = slot.get_mut(t) {
                    *s = Some(c);
                }
            }
        }
        out
    })
}

/// The tables: NATO (letters, English digit words and `niner`) first, then one per
/// language of [`LANGS`].
pub(crate) fn tables() -> &'static [Table] {
    static TABLES: OnceLock<Vec<Table>> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut nato = Table::new();
        for (w, c) in NATO.iter().zip('a'..='z') {
            add(&mut nato, w, c);
        }
        if let Some(en) = DIGITS.first() {
            for (w, c) in en.iter().zip('0'..='9') {
                add(&mut nato, w, c);
            }
        }
        add(&mut nato, "niner", '9');
        let mut out = vec![nato];
        for lang in DIGITS.iter().take(LANGS.len()) {
            let mut t = Table::new();
            for (w, c) in lang.iter().zip('0'..='9') {
                add(&mut t, w, c);
            }
            out.push(t);
        }
        out
    })
}
