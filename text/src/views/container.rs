//! Compressed and archived payloads inside decoded bytes: gzip, zlib, bzip2, xz, zip
//! and tar are opened (bounded in size and nesting) and their content read as text, so
//! `gzip | base64` is read like `base64`.

use super::tokens::as_text;
use super::View;
use std::io::Read;

/// Largest decompressed payload read, in bytes: a bound against decompression bombs.
const MAX_OUTPUT: u64 = 1 << 20;
/// Containers opened inside one another at most.
const MAX_DEPTH: usize = 3;

/// The text of decoded `bytes`: as they are, or after opening the containers they hold,
/// with the containers opened (outermost first).
pub(super) fn open(bytes: Vec<u8>) -> Option<(Vec<View>, String)> {
    let mut steps = Vec::new();
    let mut bytes = bytes;
    for _ in 0..=MAX_DEPTH {
        let Some((step, inner)) = unpack(&bytes) else {
            return as_text(bytes).map(|t| (steps, t));
        };
        steps.push(step);
        bytes = inner;
    }
    None
}

fn bounded(r: impl Read) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    r.take(MAX_OUTPUT).read_to_end(&mut out).ok()?;
    (!out.is_empty()).then_some(out)
}

/// The container `bytes` starts with, opened.
fn unpack(bytes: &[u8]) -> Option<(View, Vec<u8>)> {
    match bytes {
        [0x1f, 0x8b, ..] => {
            bounded(flate2::read::MultiGzDecoder::new(bytes)).map(|b| (View::Gzip, b))
        }
        [0x78, b, ..] if (u16::from(0x78u8) << 8 | u16::from(*b)) % 31 == 0 => {
            bounded(flate2::read::ZlibDecoder::new(bytes)).map(|b| (View::Zlib, b))
        }
        [b'B', b'Z', b'h', ..] => {
            bounded(bzip2_rs::DecoderReader::new(bytes)).map(|b| (View::Bzip2, b))
        }
        [0xfd, b'7', b'z', b'X', b'Z', 0, ..] => {
            let mut out = Vec::new();
            let mut input = std::io::BufReader::new(bytes);
            lzma_rs::xz_decompress(&mut input, &mut out).ok()?;
            out.truncate(usize::try_from(MAX_OUTPUT).unwrap_or(usize::MAX));
            (!out.is_empty()).then_some((View::Xz, out))
        }
        [b'P', b'K', 3, 4, ..] => zip_entries(bytes).map(|b| (View::Zip, b)),
        _ if is_tar(bytes) => tar_entries(bytes).map(|b| (View::Tar, b)),
        _ => None,
    }
}

fn le16(b: &[u8], at: usize) -> Option<usize> {
    let s: [u8; 2] = b.get(at..at + 2)?.try_into().ok()?;
    Some(usize::from(u16::from_le_bytes(s)))
}

fn le32(b: &[u8], at: usize) -> Option<usize> {
    let s: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
    usize::try_from(u32::from_le_bytes(s)).ok()
}

/// The contents of a zip archive's stored and deflated entries (local headers read in
/// order), joined by newlines.
fn zip_entries(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while bytes.get(at..at + 4) == Some(b"PK\x03\x04") {
        let method = le16(bytes, at + 8)?;
        let size = le32(bytes, at + 18)?;
        let name = le16(bytes, at + 26)?;
        let extra = le16(bytes, at + 28)?;
        let start = at + 30 + name + extra;
        let data = bytes.get(start..start.checked_add(size)?)?;
        match method {
            0 => out.extend_from_slice(data),
            8 => out.extend(bounded(flate2::read::DeflateDecoder::new(data))?),
            _ => return None,
        }
        out.push(b'\n');
        if out.len() as u64 > MAX_OUTPUT {
            break;
        }
        at = start + size;
    }
    (!out.is_empty()).then_some(out)
}

fn is_tar(bytes: &[u8]) -> bool {
    bytes.len() >= 512 && bytes.get(257..262) == Some(b"ustar")
}

/// The contents of a tar archive's regular files, joined by newlines.
fn tar_entries(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut archive = tar::Archive::new(bytes);
    let mut out = Vec::new();
    for entry in archive.entries().ok()? {
        let Ok(entry) = entry else { break };
        if entry.header().entry_type().is_file() {
            out.extend(bounded(entry).unwrap_or_default());
            out.push(b'\n');
        }
        if out.len() as u64 > MAX_OUTPUT {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_and_zlib_open_to_text() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"IBAN DE44 5001").unwrap();
        let (steps, t) = open(gz.finish().unwrap()).unwrap();
        assert_eq!((steps, t.as_str()), (vec![View::Gzip], "IBAN DE44 5001"));
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(b"metformin 500 mg").unwrap();
        let (steps, t) = open(z.finish().unwrap()).unwrap();
        assert_eq!((steps, t.as_str()), (vec![View::Zlib], "metformin 500 mg"));
        assert!(open(vec![0x1f, 0x8b, 1, 2, 3]).is_none());
    }

    #[test]
    fn tar_opens_to_its_files() {
        let mut b = tar::Builder::new(Vec::new());
        let data = b"PF-2291 ok";
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, "a.txt", &data[..]).unwrap();
        let bytes = b.into_inner().unwrap();
        let (steps, t) = open(bytes).unwrap();
        assert_eq!(steps, vec![View::Tar]);
        assert!(t.contains("PF-2291 ok"));
    }
}
