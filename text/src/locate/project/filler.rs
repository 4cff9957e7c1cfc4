//! Values spread with filler: a form's bytes in order in a projection, with at most
//! [`crate::render::MAX_FILLER`] other bytes between each two.

use super::Proj;
use std::ops::Range;

impl Proj {
    /// Text spans where a form of `forms` occurs: its bytes in order with at most
    /// [`crate::render::MAX_FILLER`] other bytes between each two. Each form is followed
    /// from every start at once, as bits of the projection's positions (a step shifts
    /// the positions reached by one to [`STEP`] bytes and keeps those holding the next
    /// byte); once few positions remain, the starts that can reach them are followed
    /// one by one for the whole form.
    pub(in crate::locate) fn filler(&self, forms: &FillerForms) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        if forms.forms.is_empty() || self.bytes.is_empty() {
            return out;
        }
        let n = self.bytes.len();
        let words = n.div_ceil(64);
        // Where each byte of the forms' alphabet is, as bits.
        let mut at: Vec<Vec<u64>> = vec![vec![0; words]; forms.alphabet.len()];
        for (i, b) in self.bytes.iter().enumerate() {
            if let Some(bits) = forms
                .slot
                .get(usize::from(*b))
                .and_then(|&k| at.get_mut(usize::from(k)))
            {
                if let Some(w) = bits.get_mut(i / 64) {
                    *w |= 1 << (i % 64);
                }
            }
        }
        let bits_of = |b: u8| {
            forms
                .slot
                .get(usize::from(b))
                .and_then(|&k| at.get(usize::from(k)))
        };
        let mut reached = vec![0u64; words];
        let mut starts: Vec<usize> = Vec::new();
        for form in &forms.forms {
            let Some(first) = form.first().and_then(|&b| bits_of(b)) else {
                continue;
            };
            reached.copy_from_slice(first);
            // Index in `form` of the last byte the positions in `reached` hold.
            let mut matched = 0;
            let mut count: u32 = reached.iter().map(|w| w.count_ones()).sum();
            while count > SPARSE {
                let Some(next) = form.get(matched + 1).and_then(|&b| bits_of(b)) else {
                    break;
                };
                count = step(&mut reached, next);
                matched += 1;
            }
            if count == 0 {
                continue;
            }
            // A form's byte `matched` at `p` started between `matched` and
            // `matched * STEP` bytes before it.
            starts.clear();
            let first_byte = form.first().copied();
            for (w, &word) in reached.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let p = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let lo = p.saturating_sub(matched * STEP);
                    for s in lo..=p.saturating_sub(matched) {
                        if self.bytes.get(s).copied() == first_byte {
                            starts.push(s);
                        }
                    }
                }
            }
            starts.sort_unstable();
            starts.dedup();
            for &s in &starts {
                out.extend(self.filler_from(s, form));
            }
        }
        out
    }

    /// The text span of `form` spread with filler from projected byte `start` (which
    /// holds its first byte), if it is there.
    fn filler_from(&self, start: usize, form: &[u8]) -> Option<Range<usize>> {
        let rest = form.get(1..).unwrap_or(&[]);
        // Positions reached after each character, as bits of offsets from the start: a
        // form of n characters ends within `n * STEP` bytes of where it starts.
        if form.len() * STEP > 127 {
            return self.filler_long(start, rest);
        }
        let mut frontier: u128 = 1;
        for &want in rest {
            let mut spread: u128 = 0;
            for gap in 1..=STEP {
                spread |= frontier << gap;
            }
            let mut next: u128 = 0;
            while spread != 0 {
                let q = spread.trailing_zeros() as usize;
                spread &= spread - 1;
                if self.bytes.get(start + q) == Some(&want) {
                    next |= 1 << q;
                }
            }
            frontier = next;
            if frontier == 0 {
                return None;
            }
        }
        let end = start + (127 - frontier.leading_zeros() as usize);
        Some(self.source(start..end + 1))
    }

    /// [`Proj::filler_from`] for a form too long for the bit frontier.
    fn filler_long(&self, start: usize, rest: &[u8]) -> Option<Range<usize>> {
        let mut frontier = vec![start];
        for &want in rest {
            let mut next: Vec<usize> = Vec::new();
            for &p in &frontier {
                for q in p + 1..=p + 1 + crate::render::MAX_FILLER {
                    if self.bytes.get(q) == Some(&want) && !next.contains(&q) {
                        next.push(q);
                    }
                }
            }
            frontier = next;
            if frontier.is_empty() {
                return None;
            }
        }
        let end = frontier.iter().max()?;
        Some(self.source(start..end + 1))
    }
}

/// Farthest a byte of a form spread with filler lies from the one before it.
const STEP: usize = crate::render::MAX_FILLER + 1;
/// Positions reached by a filler search below which its starts are followed one by one.
const SPARSE: u32 = 16;

/// Shifts the positions of `reached` on by one to [`STEP`] bytes and keeps those in
/// `next`; returns how many remain.
fn step(reached: &mut [u64], next: &[u64]) -> u32 {
    let mut carry = 0u64;
    let mut count = 0;
    for (word, &want) in reached.iter_mut().zip(next) {
        let w = *word;
        let mut spread = 0u64;
        for gap in 1..=STEP as u32 {
            spread |= (w << gap) | (carry >> (64 - gap));
        }
        carry = w;
        *word = spread & want;
        count += word.count_ones();
    }
    count
}

/// The forms of values spread with filler, and the bytes they are made of.
#[derive(Debug, Clone, Default)]
pub(in crate::locate) struct FillerForms {
    forms: Vec<Vec<u8>>,
    /// The distinct bytes of the forms.
    alphabet: Vec<u8>,
    /// For each byte, its index in `alphabet` (`u8::MAX` for none).
    slot: Vec<u8>,
}

impl FillerForms {
    /// `forms` (duplicates dropped).
    pub(in crate::locate) fn new(mut forms: Vec<Vec<u8>>) -> Self {
        forms.sort_unstable();
        forms.dedup();
        let mut alphabet: Vec<u8> = forms.iter().flatten().copied().collect();
        alphabet.sort_unstable();
        alphabet.dedup();
        // At most 255 distinct bytes can be told apart from "none"; a form of a byte
        // beyond that finds nothing, and forms are ASCII letters and digits anyway.
        alphabet.truncate(usize::from(u8::MAX));
        let mut slot = vec![u8::MAX; 256];
        for (k, b) in alphabet.iter().enumerate() {
            if let (Some(s), Ok(k)) = (slot.get_mut(usize::from(*b)), u8::try_from(k)) {
                *s = k;
            }
        }
        FillerForms {
            forms,
            alphabet,
            slot,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn proj(bytes: &[u8]) -> Proj {
        let mut p = Proj::default();
        for (i, &b) in bytes.iter().enumerate() {
            // Offsets with gaps, as a projection that drops bytes has.
            p.push(b, i * 2 + 1);
        }
        p
    }

    /// Every start followed on its own: what the search must find.
    fn every_start(p: &Proj, forms: &FillerForms) -> Vec<Range<usize>> {
        let mut out: Vec<Range<usize>> = forms
            .forms
            .iter()
            .flat_map(|form| {
                (0..p.bytes.len())
                    .filter(|&s| p.bytes.get(s) == form.first())
                    .filter_map(|s| p.filler_from(s, form))
            })
            .collect();
        out.sort_by_key(|r| (r.start, r.end));
        out.dedup();
        out
    }

    proptest! {
        /// The search from all starts at once finds what following each start finds,
        /// for forms short and long, in texts dense with their bytes and across the
        /// 64-byte words of the bit search.
        #[test]
        fn the_search_from_all_starts_finds_what_each_start_finds(
            text in proptest::collection::vec(prop::sample::select(b"abcdx".to_vec()), 0..400),
            forms in proptest::collection::vec(
                proptest::collection::vec(prop::sample::select(b"abcd".to_vec()), 1..40),
                1..5,
            ),
        ) {
            let p = proj(&text);
            let forms = FillerForms::new(forms);
            let mut found = p.filler(&forms);
            found.sort_by_key(|r| (r.start, r.end));
            found.dedup();
            prop_assert_eq!(found, every_start(&p, &forms));
        }
    }

    #[test]
    fn a_form_spread_over_a_word_boundary_is_found() {
        let mut text = vec![b'z'; 200];
        for (k, b) in b"quarry".iter().enumerate() {
            if let Some(slot) = text.get_mut(60 + k * 4) {
                *slot = *b;
            }
        }
        let p = proj(&text);
        let found = p.filler(&FillerForms::new(vec![b"quarry".to_vec()]));
        assert_eq!(found, vec![121..(60 + 5 * 4) * 2 + 2]);
        // Without the `a`, `u` and `r` are 8 bytes apart: more than 3 bytes of filler.
        let gap_too_wide = FillerForms::new(vec![b"qurry".to_vec()]);
        assert!(p.filler(&gap_too_wide).is_empty());
    }
}
