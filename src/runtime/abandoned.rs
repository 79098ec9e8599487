//! The runtime's look for matches the player walked away from: every so
//! often it asks SQL for unfinished matches in which the player has neither
//! moved nor written for `limits.abandon_after_hours`, and tells each one's
//! actor to end it (`actor/abandon.rs`), unless the player came back.

use std::time::Duration;

use chrono::Utc;
use tokio_cron_scheduler::Job;

use super::actor::Command;
use super::{Runtime, RuntimeError, ask};

/// How often the runtime looks: a tenth of the allowed absence, within
/// these bounds (the scheduler counts whole seconds).
const LOOK_AT_LEAST_EVERY: Duration = Duration::from_secs(600);
const LOOK_AT_MOST_EVERY: Duration = Duration::from_secs(1);

impl Runtime {
    /// Arms the periodic look for abandoned matches (none if the limit is 0).
    pub(in crate::runtime) async fn watch_for_abandoned(&self) {
        let Some(after) = self.svc.config.limits.abandon_after() else {
            return;
        };
        let every = (after / 10).clamp(LOOK_AT_MOST_EVERY, LOOK_AT_LEAST_EVERY);
        let runtime = self.clone();
        let job = Job::new_repeated_async(every, move |_, _| {
            let runtime = runtime.clone();
            Box::pin(async move {
                if let Err(e) = runtime.end_abandoned(after).await {
                    tracing::warn!("looking for abandoned matches failed: {e}");
                }
            })
        });
        let added = match job {
            Ok(job) => self.svc.scheduler.add(job).await.map(drop),
            Err(e) => Err(e),
        };
        if let Err(e) = added {
            tracing::warn!("abandoned matches will not be ended: {e}");
        }
    }

    /// Ends every match untouched by its player for `after`; how many ended.
    pub async fn end_abandoned(&self, after: Duration) -> Result<usize, RuntimeError> {
        let cutoff = Utc::now() - chrono::Duration::from_std(after).unwrap_or(chrono::Duration::MAX);
        let mut ended = 0;
        for id in self.svc.db.untouched_since(cutoff).await? {
            let inbox = match self.inbox(id).await {
                Ok(inbox) => inbox,
                // Finished, or another node runs it (and looks for itself).
                Err(RuntimeError::GameOver | RuntimeError::HeldElsewhere { .. }) => continue,
                Err(e) => {
                    tracing::warn!(match_id = %id, "an abandoned match could not be loaded: {e}");
                    continue;
                }
            };
            match ask(&inbox, |reply| Command::Abandon { cutoff, reply }).await {
                Ok(true) => ended += 1,
                Ok(false) | Err(RuntimeError::GameOver) => {}
                Err(e) => tracing::warn!(match_id = %id, "an abandoned match could not be ended: {e}"),
            }
        }
        if ended > 0 {
            tracing::info!("{ended} matches untouched for {after:?} ended as abandoned");
        }
        Ok(ended)
    }
}
