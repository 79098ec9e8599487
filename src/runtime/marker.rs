//! `data/kibitz.running`: present while kibitz runs on a data dir. Found at
//! start, it means the vector index may disagree with SQL (a crash, kill -9,
//! power loss, or a write the index missed), so the index is checked against
//! SQL memory by memory. It is removed only when nothing is left to check.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub struct RunMarker {
    path: PathBuf,
    /// The next start must check the index: set at claim when the last run
    /// left the marker (until this run's check is done), and when a stop
    /// was not clean.
    keep: AtomicBool,
    /// Set by the index (`memory::watched::Watched`) when a write it was
    /// given failed after SQL had committed it.
    missed: Arc<AtomicBool>,
}

impl RunMarker {
    /// Claims the marker; true if the last run left it behind. The error
    /// names the marker's path.
    pub(super) fn claim(dir: &Path) -> Result<(RunMarker, bool), (PathBuf, std::io::Error)> {
        let path = dir.join("kibitz.running");
        let unclean = path.exists();
        if let Err(e) = std::fs::write(&path, "kibitz runs on this data dir; removed at a clean shutdown\n") {
            return Err((path, e));
        }
        let marker = RunMarker {
            path,
            keep: AtomicBool::new(unclean),
            missed: Arc::default(),
        };
        Ok((marker, unclean))
    }

    /// The index was checked against SQL (or needed no check): a start that
    /// fails from now on need not leave the marker.
    pub fn index_checked(&self) {
        self.keep.store(false, Ordering::Release);
    }

    /// The flag the index sets when it misses a write.
    pub fn missed_writes(&self) -> Arc<AtomicBool> {
        self.missed.clone()
    }

    /// A clean shutdown: the marker goes unless the index missed a write;
    /// false if it stays.
    pub fn release(&self) -> bool {
        if self.missed.load(Ordering::Acquire) {
            tracing::warn!("the vector index missed a write this run: it is checked against SQL at the next start");
            return false;
        }
        let _ = std::fs::remove_file(&self.path);
        true
    }

    /// Work was cut short: the next start must check the index.
    pub fn keep(&self) {
        self.keep.store(true, Ordering::Release);
    }
}

impl Drop for RunMarker {
    fn drop(&mut self) {
        if !self.keep.load(Ordering::Acquire) {
            self.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker_in(dir: &Path) -> bool {
        dir.join("kibitz.running").exists()
    }

    #[test]
    fn a_crash_mark_survives_a_start_that_fails_before_the_check() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kibitz.running"), "left by a crash").unwrap();
        let (marker, unclean) = RunMarker::claim(dir.path()).unwrap();
        assert!(unclean);
        drop(marker); // the start failed: models missing, database down, ...
        assert!(marker_in(dir.path()), "the next start must still check the index");

        let (marker, unclean) = RunMarker::claim(dir.path()).unwrap();
        assert!(unclean, "the next start sees the crash");
        marker.index_checked();
        drop(marker);
        assert!(!marker_in(dir.path()), "once checked, a failed start leaves nothing");
    }

    #[test]
    fn a_missed_index_write_keeps_the_marker_through_a_clean_stop() {
        let dir = tempfile::tempdir().unwrap();
        let (marker, unclean) = RunMarker::claim(dir.path()).unwrap();
        assert!(!unclean);
        marker.missed_writes().store(true, Ordering::Release);
        assert!(!marker.release());
        drop(marker);
        assert!(marker_in(dir.path()));

        let (marker, _) = RunMarker::claim(dir.path()).unwrap();
        marker.index_checked();
        assert!(marker.release(), "a run that missed nothing stops clean");
        assert!(!marker_in(dir.path()));
    }
}
