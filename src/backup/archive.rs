//! A backup's file: a gzipped tar of a folder, written beside its final
//! name and renamed into place once whole, so a crash leaves no half file
//! under that name.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

use super::BackupError;

/// Packs every file under `dir` (paths relative to it) into `out`.
pub fn pack(dir: &Path, out: &Path) -> Result<(), BackupError> {
    let partial = out.with_extension("partial");
    let file = File::create(&partial).map_err(|e| BackupError::io(&partial, e))?;
    let mut tar = tar::Builder::new(GzEncoder::new(BufWriter::new(file), Compression::default()));
    tar.append_dir_all(".", dir).map_err(|e| BackupError::io(dir, e))?;
    let gz = tar.into_inner().map_err(|e| BackupError::io(&partial, e))?;
    let mut writer = gz.finish().map_err(|e| BackupError::io(&partial, e))?;
    writer.flush().map_err(|e| BackupError::io(&partial, e))?;
    let file = writer
        .into_inner()
        .map_err(|e| BackupError::io(&partial, e.into_error()))?;
    file.sync_all().map_err(|e| BackupError::io(&partial, e))?;
    std::fs::rename(&partial, out).map_err(|e| BackupError::io(out, e))
}

/// Unpacks `archive` into `dir` (tar refuses entries that would land
/// outside it).
pub fn unpack(archive: &Path, dir: &Path) -> Result<(), BackupError> {
    let file = File::open(archive).map_err(|e| BackupError::io(archive, e))?;
    tar::Archive::new(GzDecoder::new(file))
        .unpack(dir)
        .map_err(|e| BackupError::Damaged(format!("{} cannot be unpacked: {e}", archive.display())))
}
