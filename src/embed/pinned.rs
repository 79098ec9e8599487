//! The vectors of a fixed vocabulary (the subconscious's situation
//! sentences), saved next to the data so a restart loads them in
//! milliseconds instead of running the model over every sentence again.
//!
//! File: magic, a key (SHA-256 of the model's digest and every text), the
//! count and the dimension as little-endian u32, then the vectors as
//! little-endian f32. Any other model or vocabulary gives another key, and
//! the file is rebuilt.

use std::io::Write;
use std::path::Path;

use sha2::{Digest, Sha256};

const MAGIC: &[u8; 8] = b"KBZVEC1\n";
const HEADER: usize = MAGIC.len() + 32 + 8;

/// What the saved vectors must have been made from.
pub fn key(model_digest: &[u8; 32], texts: &[String]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(model_digest);
    for t in texts {
        h.update((t.len() as u64).to_le_bytes());
        h.update(t.as_bytes());
    }
    h.finalize().into()
}

/// The saved vectors, if the file exists and was made with this key.
pub fn load(path: &Path, key: &[u8; 32], count: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() < HEADER || &bytes[..MAGIC.len()] != MAGIC || &bytes[MAGIC.len()..MAGIC.len() + 32] != key {
        return None;
    }
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
    let (n, dim) = (u32_at(MAGIC.len() + 32), u32_at(MAGIC.len() + 36));
    if n != count || dim == 0 || bytes.len() != HEADER + n * dim * 4 {
        return None;
    }
    let floats: Vec<f32> = bytes[HEADER..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    Some(floats.chunks_exact(dim).map(<[f32]>::to_vec).collect())
}

/// Writes the vectors beside `path` and renames over it, so a crash leaves
/// the old file or the new one, never half of one.
pub fn save(path: &Path, key: &[u8; 32], vectors: &[Vec<f32>]) -> std::io::Result<()> {
    let dim = vectors.first().map_or(0, Vec::len);
    let mut bytes = Vec::with_capacity(HEADER + vectors.len() * dim * 4);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(key);
    bytes.extend_from_slice(&(vectors.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&(dim as u32).to_le_bytes());
    for v in vectors {
        bytes.extend(v.iter().flat_map(|x| x.to_le_bytes()));
    }
    // Several servers may share the file (it sits with the model): each
    // writes its own temporary file, and renames are atomic.
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(&bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_come_back_only_for_the_same_model_and_texts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("situations.vec");
        let texts = vec!["a".to_string(), "b".to_string()];
        let k = key(&[1; 32], &texts);
        let vectors = vec![vec![0.5, -1.0, 2.0], vec![3.0, 0.0, -0.25]];
        save(&path, &k, &vectors).unwrap();
        assert_eq!(load(&path, &k, 2), Some(vectors));
        assert_eq!(load(&path, &key(&[2; 32], &texts), 2), None, "another model");
        let other = vec!["a".to_string(), "c".to_string()];
        assert_eq!(load(&path, &key(&[1; 32], &other), 2), None, "other texts");
        std::fs::write(&path, b"KBZVEC1\ntruncated").unwrap();
        assert_eq!(load(&path, &k, 2), None);
    }
}
