//! A clean stop, once the server takes no more requests: no timer fires, each
//! live match finishes the command it is on, the vector index is flushed, and
//! only then is the run marker removed, so the next start trusts the data.

use std::time::Duration;

use super::Runtime;

/// The longest a match may take to finish its command (an LLM call may be
/// under way); after it the stop counts as unclean and the next start checks
/// every memory in the index.
const DRAIN: Duration = Duration::from_secs(10);

/// How a stop went.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Everything acknowledged is on disk, SQL and index alike.
    Clean,
    /// Something was still running or could not be flushed; the run marker
    /// stays, so the next start reconciles the index with SQL.
    Unclean(String),
}

impl Runtime {
    /// Stops timers and matches, flushes the index, and removes the run
    /// marker if all of that went through.
    pub async fn shutdown(&self) -> Stopped {
        self.stop_resuming();
        self.stop_adopting();
        let mut scheduler = self.svc.scheduler.clone();
        if let Err(e) = scheduler.shutdown().await {
            tracing::warn!("stopping the scheduler: {e}");
        }
        // Each actor ends once its inbox is empty and no sender is left;
        // the registry holds the only lasting ones.
        let live = std::mem::take(&mut *self.live.lock().expect("registry lock"));
        let busy = live.len();
        drop(live);
        let unclean = |why: String| {
            self.svc.marker.keep();
            Stopped::Unclean(why)
        };
        let drained = tokio::time::timeout(DRAIN, self.actors.closed()).await;
        // Every match has ended: other nodes may take them now. (A match
        // still busy keeps its lease until it expires, after this exit.)
        self.release_leases(drained.is_ok()).await;
        if drained.is_err() {
            let left = self.actors.receiver_count();
            return unclean(format!("{left} of {busy} matches still busy after {DRAIN:?}"));
        }
        if let Err(e) = self.svc.memory.flush_index().await {
            return unclean(format!("the vector index could not be flushed: {e}"));
        }
        if !self.svc.marker.release() {
            return Stopped::Unclean("the vector index missed a write; it is checked at the next start".into());
        }
        Stopped::Clean
    }
}
