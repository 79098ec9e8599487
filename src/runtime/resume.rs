//! Serve first, resume after: the matches that were unfinished when the
//! last run stopped are loaded in the background, a few at a time, while
//! the server already answers (`/api/health` says `starting` and how many
//! are left). A player's command for a match not loaded yet loads it at
//! once (`Runtime::inbox`); the background task then finds it running.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use futures_util::StreamExt;

use super::{Runtime, RuntimeError};
use crate::ids::MatchId;

/// Matches loaded at once: enough to use the database well, few enough
/// that a player's own command is not queued behind thousands.
const AT_ONCE: usize = 8;

#[derive(Default)]
pub(super) struct Resuming {
    left: AtomicUsize,
    /// The background task, stopped by a shutdown.
    task: Mutex<Option<tokio::task::AbortHandle>>,
}

impl Runtime {
    pub(super) fn resume_in_background(&self, ids: Vec<MatchId>) {
        let total = ids.len();
        self.resuming.left.store(total, Ordering::Release);
        if total == 0 {
            return;
        }
        tracing::info!("resuming {total} unfinished matches in the background");
        let runtime = self.clone();
        let task = tokio::spawn(async move {
            let started = Instant::now();
            futures_util::stream::iter(ids)
                .for_each_concurrent(AT_ONCE, |id| {
                    let runtime = runtime.clone();
                    async move {
                        runtime.resume(id).await;
                        runtime.resuming.left.fetch_sub(1, Ordering::AcqRel);
                    }
                })
                .await;
            tracing::info!("{total} unfinished matches resumed in {:.1?}", started.elapsed());
        });
        *self.resuming.task.lock().expect("resume lock") = Some(task.abort_handle());
    }

    pub(super) async fn resume(&self, id: MatchId) {
        match self.spawn(id, false).await {
            Ok((_, Some(begun))) => {
                if let Ok(Err(e)) = begun.await {
                    tracing::warn!(match_id = %id, "resuming failed: {e}");
                }
            }
            // A player's command loaded it first.
            Ok((_, None)) => {}
            // Another node took it first.
            Err(RuntimeError::HeldElsewhere { node, .. }) => {
                tracing::debug!(match_id = %id, "node {node} runs it")
            }
            Err(e) => tracing::warn!(match_id = %id, "cannot resume: {e}"),
        }
    }

    /// Unfinished matches still to be loaded after a start.
    pub fn resuming(&self) -> usize {
        self.resuming.left.load(Ordering::Acquire)
    }

    /// A stop stops the loading too: no match starts while others drain.
    pub(super) fn stop_resuming(&self) {
        if let Some(task) = self.resuming.task.lock().expect("resume lock").take() {
            task.abort();
        }
    }
}
