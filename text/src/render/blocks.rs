//! Block encodings of a value inside a longer payload: the characters fully determined
//! by the value's bytes at each byte offset modulo the block, whatever surrounds it.

use crate::views::{Block, View};
use base64::engine::general_purpose::STANDARD_NO_PAD;
use base64::Engine;

/// Shortest core searched, in characters.
const MIN_CORE: usize = 8;

/// Characters `k` of an encoding with `bits` bits per character that lie wholly inside
/// the bit range of the value (after `offset` bytes).
fn core(encoded: &str, bits: usize, offset: usize, len: usize) -> Option<String> {
    let first = (8 * offset).div_ceil(bits);
    let end = (8 * (offset + len)) / bits;
    let s = encoded.get(first..end.min(encoded.len()))?;
    (s.len() >= MIN_CORE).then(|| s.to_owned())
}

fn ascii85(bytes: &[u8]) -> String {
    let mut out = String::new();
    for g in bytes.chunks(4) {
        let mut b = [0u8; 4];
        for (d, x) in b.iter_mut().zip(g) {
            *d = *x;
        }
        let mut v = u32::from_be_bytes(b);
        let mut digits = [0u8; 5];
        for d in digits.iter_mut().rev() {
            *d = b'!' + u8::try_from(v % 85).unwrap_or(0);
            v /= 85;
        }
        out.extend(digits.iter().take(g.len() + 1).map(|&d| char::from(d)));
    }
    out
}

/// The cores of `value` at every offset of every block encoding, labelled.
pub(super) fn cores(value: &str) -> Vec<(View, String)> {
    let v = value.as_bytes();
    let mut out = Vec::new();
    for offset in 0..5usize {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(v);
        let label = |b| View::At(b, u8::try_from(offset).unwrap_or(0));
        if offset < 3 {
            if let Some(c) = core(&STANDARD_NO_PAD.encode(&bytes), 6, offset, v.len()) {
                out.push((label(Block::Base64), c.replace('+', "-").replace('/', "_")));
                out.push((label(Block::Base64), c));
            }
        }
        if let Some(c) = core(
            &data_encoding::BASE32_NOPAD.encode(&bytes),
            5,
            offset,
            v.len(),
        ) {
            out.push((label(Block::Base32), c.to_ascii_lowercase()));
            out.push((label(Block::Base32), c));
        }
        if offset < 4 {
            let enc = ascii85(&bytes);
            let first = offset.div_ceil(4) * 5;
            let end = ((offset + v.len()) / 4) * 5;
            if let Some(c) = enc.get(first..end).filter(|c| c.len() >= MIN_CORE) {
                out.push((label(Block::Ascii85), c.to_owned()));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out.dedup_by(|a, b| a.1 == b.1);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_inside_a_longer_payload_is_found_at_every_offset() {
        let value = "DE44 5001 0517 5407";
        for pre in ["", "x", "xy", "xyz", "IBAN: "] {
            let payload = format!("{pre}{value} thanks");
            let b64 = STANDARD_NO_PAD.encode(&payload);
            let b32 = data_encoding::BASE32.encode(payload.as_bytes());
            let a85 = ascii85(payload.as_bytes());
            let cs = cores(value);
            for enc in [b64, b32, a85] {
                assert!(
                    cs.iter().any(|(_, c)| enc.contains(c.as_str())),
                    "{pre:?} {enc}"
                );
            }
        }
    }
}
