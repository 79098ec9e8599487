//! The match's timers: the idle_wait nudge, a one-shot job on
//! tokio-cron-scheduler, re-armed on every user action, escalating per the
//! persona's idle policy, capped, and cancelled when the match ends (a
//! generation number makes a job that fires after being replaced harmless);
//! and when the player was last heard from, which abandonment reads.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_cron_scheduler::{Job, JobScheduler};
use uuid::Uuid;

use super::Command;
use crate::personas::IdlePolicy;

/// How near its time a replaced job is left to fire rather than removed.
/// The scheduler counts in whole seconds and so may fire a one-shot job up to
/// 2 s early; the third second leaves its deleter time to act on a removal.
const LEAVE_TO_FIRE: Duration = Duration::from_secs(3);

pub struct IdleTimer {
    scheduler: JobScheduler,
    job: Option<Armed>,
    generation: u64,
    /// Nudges already given since the user last acted.
    nudges: u32,
    /// When the player last sent a command (None: not since the match was
    /// loaded).
    last_heard: Option<DateTime<Utc>>,
}

/// The scheduled job and when its nudge is due.
#[derive(Clone, Copy)]
struct Armed {
    id: Uuid,
    due: Instant,
}

impl IdleTimer {
    pub fn new(scheduler: JobScheduler) -> IdleTimer {
        IdleTimer {
            scheduler,
            job: None,
            generation: 0,
            nudges: 0,
            last_heard: None,
        }
    }

    /// The nudges given before a restart, since the player last acted.
    pub fn resume_nudges(&mut self, given: u32) {
        self.nudges = given;
    }

    /// A nudge is given: its number (0 for the first since the player acted).
    pub fn nudge(&mut self) -> u32 {
        self.nudges += 1;
        self.nudges - 1
    }

    /// The player sent a command.
    pub fn heard(&mut self) {
        self.last_heard = Some(Utc::now());
    }

    /// Whether the player was heard from at or after `cutoff`.
    pub fn heard_since(&self, cutoff: DateTime<Utc>) -> bool {
        self.last_heard.is_some_and(|t| t >= cutoff)
    }

    pub fn is_current(&self, generation: u64) -> bool {
        generation == self.generation && self.job.is_some()
    }

    /// Delay before the next nudge, or None once the policy's cap is reached.
    pub fn next_delay(&self, policy: &IdlePolicy, scale: f64) -> Option<Duration> {
        (self.nudges < policy.max_nudges).then(|| {
            let secs = policy.first_after_secs * policy.escalation.powi(self.nudges as i32) * scale;
            Duration::from_secs_f64(secs.max(0.05))
        })
    }

    /// The user acted: start counting nudges afresh.
    pub fn reset(&mut self) {
        self.nudges = 0;
    }

    /// The job holds the actor weakly: a stopping runtime (which drops the
    /// registry's senders) must not wait for a timer that will never fire.
    pub async fn arm(&mut self, delay: Duration, actor: mpsc::WeakSender<Command>) {
        self.cancel().await;
        self.generation += 1;
        let generation = self.generation;
        let due = Instant::now() + delay;
        let job = Job::new_one_shot_async(delay, move |_, _| {
            let actor = actor.clone();
            Box::pin(async move {
                // The scheduler works in whole seconds and may fire up to a
                // second early; never nudge before the delay has passed.
                tokio::time::sleep_until(due).await;
                if let Some(actor) = actor.upgrade() {
                    let _ = actor.send(Command::IdleFired { generation }).await;
                }
            })
        });
        match job {
            Ok(job) => match self.scheduler.add(job).await {
                Ok(id) => self.job = Some(Armed { id, due }),
                Err(e) => tracing::warn!("cannot schedule idle_wait: {e}"),
            },
            Err(e) => tracing::warn!("cannot create idle_wait job: {e}"),
        }
    }

    /// The current job has fired. The scheduler deletes a one-shot job
    /// itself once it has run, so it is forgotten here, not removed:
    /// removing it raced with the scheduler's own record of that run, which
    /// then logged "Could not get job metadata" at ERROR (after every nudge
    /// under load).
    pub fn fired(&mut self) {
        self.job = None;
    }

    /// Removing a job the scheduler has just fired races with its record of
    /// that run in the same way as `fired` describes, so a job this near its
    /// time is only forgotten: it fires with an outdated generation, which
    /// the match ignores, and the scheduler then deletes it itself.
    pub async fn cancel(&mut self) {
        if let Some(job) = self.job.take()
            && job.due.saturating_duration_since(Instant::now()) > LEAVE_TO_FIRE
        {
            let _ = self.scheduler.remove(&job.id).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn delays_escalate_and_stop_at_the_cap() {
        let policy = IdlePolicy {
            first_after_secs: 10.0,
            escalation: 2.0,
            max_nudges: 3,
        };
        let mut timer = IdleTimer::new(JobScheduler::new().await.unwrap());
        let mut delays = Vec::new();
        while let Some(d) = timer.next_delay(&policy, 0.5) {
            delays.push(d.as_secs_f64());
            timer.nudge();
        }
        assert_eq!(delays, vec![5.0, 10.0, 20.0]);
        timer.reset();
        assert_eq!(timer.next_delay(&policy, 1.0), Some(Duration::from_secs(10)));
    }

    /// `fired` leaves a run one-shot job to the scheduler, which must then
    /// delete it itself, or every nudge would leave one behind.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fired_job_is_deleted_by_the_scheduler_itself() {
        let (scheduler, mut timer, tx, mut rx) = running_timer().await;
        timer.arm(Duration::from_millis(50), tx.downgrade()).await;
        let fired_id = timer.job.expect("armed").id;
        let fired = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await;
        assert!(matches!(fired, Ok(Some(Command::IdleFired { generation: 1 }))));
        timer.fired();
        timer.arm(Duration::from_secs(600), tx.downgrade()).await;
        assert!(
            gone_within(&scheduler, fired_id, 5).await,
            "the fired job is still in the scheduler"
        );
        assert!(
            stored(&scheduler, timer.job.expect("re-armed").id).await,
            "the new job is kept"
        );
    }

    /// A job cancelled near its time is left to fire (harmlessly: its
    /// generation is outdated) and then deleted by the scheduler; one far
    /// from its time is removed at once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancel_removes_a_far_job_and_leaves_a_near_one_to_fire() {
        let (scheduler, mut timer, tx, mut rx) = running_timer().await;

        timer.arm(Duration::from_secs(600), tx.downgrade()).await;
        let far = timer.job.expect("armed").id;
        timer.cancel().await;
        assert!(gone_within(&scheduler, far, 5).await, "a far job is removed");

        timer.arm(Duration::from_millis(50), tx.downgrade()).await;
        let near = timer.job.expect("armed").id;
        timer.cancel().await;
        assert!(stored(&scheduler, near).await, "a near job is left to fire");
        let fired = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await;
        assert!(matches!(fired, Ok(Some(Command::IdleFired { generation: 2 }))));
        assert!(!timer.is_current(2), "the match ignores it");
        assert!(gone_within(&scheduler, near, 5).await, "the scheduler deletes it");
    }

    /// A timer on a running scheduler, and the inbox its jobs send to.
    async fn running_timer() -> (JobScheduler, IdleTimer, mpsc::Sender<Command>, mpsc::Receiver<Command>) {
        let scheduler = JobScheduler::new().await.unwrap();
        scheduler.start().await.unwrap();
        let (tx, rx) = mpsc::channel(4);
        (scheduler.clone(), IdleTimer::new(scheduler), tx, rx)
    }

    async fn gone_within(scheduler: &JobScheduler, id: Uuid, secs: u64) -> bool {
        for _ in 0..secs * 10 {
            if !stored(scheduler, id).await {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }

    async fn stored(scheduler: &JobScheduler, id: Uuid) -> bool {
        let storage = scheduler.context().metadata_storage.clone();
        let found = storage.write().await.get(id).await;
        found.expect("the scheduler's store answers").is_some()
    }
}
