//! Encodings applied around a text: radix encodings, escapes, compression.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use std::io::Write;

/// An encoding applied around the text.
#[derive(Debug, Clone)]
pub enum Outer {
    /// Base64 (URL-safe without padding when set) of the text after a short prefix.
    Base64(bool, usize),
    /// RFC 4648 base32, lowercase when set.
    Base32(bool),
    /// Base58 (Bitcoin alphabet).
    Base58,
    /// Hex, bytes separated by spaces when set.
    Hex(bool),
    /// HTML numeric character references, hexadecimal when set.
    Entities(bool),
    /// `\uXXXX` escapes of UTF-16 units.
    UEscape,
    /// `\xXX` escapes of bytes.
    XEscape,
    /// C octal escapes of bytes (`\101`).
    OctalEscape,
    /// Percent-encoding of every byte.
    Percent,
    /// Quoted-printable of every byte.
    QuotedPrintable,
    /// Ascii85 between `<~` and `~>`.
    Ascii85,
    /// A uuencoded file.
    Uuencode,
    /// gzip, zlib or xz, then base64.
    Compressed(u8),
    /// The text written backwards.
    Reversed,
    /// Bytes in binary, eight digits each, spaced when set.
    Binary(bool),
    /// Bytes in octal, three digits each, spaced.
    Octal,
    /// Character codes in decimal, comma-separated when set.
    Decimal(bool),
    /// `U+XXXX` code points, spaced.
    CodePoints,
}

fn compress(kind: u8, data: &[u8]) -> Vec<u8> {
    match kind % 3 {
        0 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data)
                .ok()
                .and_then(|()| e.finish().ok())
                .unwrap_or_default()
        }
        1 => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data)
                .ok()
                .and_then(|()| e.finish().ok())
                .unwrap_or_default()
        }
        _ => {
            let mut out = Vec::new();
            match lzma_rs::xz_compress(&mut std::io::BufReader::new(data), &mut out) {
                Ok(()) => out,
                Err(_) => Vec::new(),
            }
        }
    }
}

fn ascii85(bytes: &[u8]) -> String {
    let mut out = String::from("<~");
    for g in bytes.chunks(4) {
        let mut w = [0u8; 4];
        for (slot, b) in w.iter_mut().zip(g) {
            *slot = *b;
        }
        let mut v = u32::from_be_bytes(w);
        let mut d = [0u8; 5];
        for x in d.iter_mut().rev() {
            *x = b'!' + (v % 85) as u8;
            v /= 85;
        }
        out.extend(d.iter().take(g.len() + 1).map(|&x| char::from(x)));
    }
    out + "~>"
}

fn uuencode(bytes: &[u8]) -> String {
    let mut out = String::from("begin 644 v.txt\n");
    for line in bytes.chunks(45) {
        out.push(char::from(32 + line.len() as u8));
        for g in line.chunks(3) {
            let mut w = [0u8; 3];
            for (slot, b) in w.iter_mut().zip(g) {
                *slot = *b;
            }
            let [a, b, c] = w;
            let v = u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c);
            for k in (0..4).rev() {
                let d = ((v >> (6 * k)) & 63) as u8;
                out.push(if d == 0 { '`' } else { char::from(32 + d) });
            }
        }
        out.push('\n');
    }
    out + "`\nend\n"
}

impl Outer {
    /// The family's name in the tests' per-family tables.
    pub fn family(&self) -> &'static str {
        match self {
            Outer::Base64(..) => "base64",
            Outer::Base32(_) => "base32",
            Outer::Base58 => "base58",
            Outer::Hex(_) => "hex",
            Outer::Entities(_) => "entities",
            Outer::UEscape => "u_escape",
            Outer::XEscape => "x_escape",
            Outer::OctalEscape => "octal_escape",
            Outer::Percent => "percent",
            Outer::QuotedPrintable => "quoted_printable",
            Outer::Ascii85 => "ascii85",
            Outer::Uuencode => "uuencode",
            Outer::Compressed(k) => match k % 3 {
                0 => "gzip",
                1 => "zlib",
                _ => "xz",
            },
            Outer::Reversed => "reversed",
            Outer::Binary(_) => "binary",
            Outer::Octal => "octal",
            Outer::Decimal(_) => "decimal",
            Outer::CodePoints => "code_points",
        }
    }

    /// `text` encoded by this member.
    pub fn apply(&self, text: &str) -> String {
        let b = text.as_bytes();
        match *self {
            Outer::Base64(url, pre) => {
                const PREFIXES: [&str; 6] = ["", "n ", "no ", "not ", "note ", "note: "];
                let prefix = PREFIXES.get(pre % PREFIXES.len()).copied().unwrap_or("");
                let payload = format!("{prefix}{text}");
                if url {
                    URL_SAFE_NO_PAD.encode(payload)
                } else {
                    STANDARD.encode(payload)
                }
            }
            Outer::Base32(lower) => {
                let e = data_encoding::BASE32.encode(b);
                if lower {
                    e.to_lowercase()
                } else {
                    e
                }
            }
            Outer::Base58 => bs58::encode(b).into_string(),
            Outer::Hex(spaced) => {
                if spaced {
                    b.iter()
                        .map(|x| format!("{x:02X}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                } else {
                    hex::encode(b)
                }
            }
            Outer::Entities(hexa) => text
                .chars()
                .map(|c| {
                    if hexa {
                        format!("&#x{:x};", c as u32)
                    } else {
                        format!("&#{};", c as u32)
                    }
                })
                .collect(),
            Outer::UEscape => text.encode_utf16().map(|u| format!("\\u{u:04x}")).collect(),
            Outer::XEscape => b.iter().map(|x| format!("\\x{x:02x}")).collect(),
            Outer::OctalEscape => b.iter().map(|x| format!("\\{x:03o}")).collect(),
            Outer::Percent => b.iter().map(|x| format!("%{x:02X}")).collect(),
            Outer::QuotedPrintable => b.iter().map(|x| format!("={x:02X}")).collect(),
            Outer::Ascii85 => ascii85(b),
            Outer::Uuencode => uuencode(b),
            Outer::Compressed(k) => STANDARD.encode(compress(k, b)),
            Outer::Reversed => text.chars().rev().collect(),
            Outer::Binary(spaced) => {
                let bits: Vec<String> = b.iter().map(|x| format!("{x:08b}")).collect();
                bits.join(if spaced { " " } else { "" })
            }
            Outer::Octal => b
                .iter()
                .map(|x| format!("{x:03o}"))
                .collect::<Vec<_>>()
                .join(" "),
            Outer::Decimal(commas) => text
                .chars()
                .map(|c| (c as u32).to_string())
                .collect::<Vec<_>>()
                .join(if commas { ", " } else { " " }),
            Outer::CodePoints => text
                .chars()
                .map(|c| format!("U+{:04X}", c as u32))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}
