//! This node's leases on PostgreSQL: its name and run, the matches it holds
//! and until when it may trust that it holds them. A node acts on a match
//! only under a lease (`Runtime::spawn` claims it first); the database's
//! clock decides when a lease has run out, and this node stops acting a
//! margin before that by its own clock, so no two nodes ever act on one
//! match at once (`ownership.rs` renews, fences and takes over).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::watch;

use super::RuntimeError;
use crate::config::Config;
use crate::ids::MatchId;
use crate::store::{Claim, Db, Holder, NodeRun, PeerNode};

/// The club-wide role of running the consolidation job.
pub const CONSOLIDATION_ROLE: &str = "consolidation";

#[derive(Debug, thiserror::Error)]
pub enum ClusterStartError {
    #[error(
        "node {node} ({url}) already serves this database; to run several nodes, give each its KIBITZ_NODE_URL \
         (and PostgreSQL, a Qdrant server and a shared KIBITZ_CLUSTER_SECRET), or stop the other node first"
    )]
    AnotherNode { node: String, url: String },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

pub struct Leases {
    db: Db,
    pub run: NodeRun,
    pub url: Option<String>,
    pub ttl: Duration,
    /// Until when this run may act on the leases it holds (its own clock):
    /// the last renewal's sending time plus nine tenths of the lease time.
    valid_until: watch::Sender<Instant>,
    /// Whether this run holds the consolidation role.
    leader: AtomicBool,
    /// Set by a clean stop: no more matches are adopted.
    stopping: AtomicBool,
}

impl Leases {
    /// Registers this node's run; refused if another node serves the
    /// database and either of them is not a cluster member.
    pub async fn open(config: &Config, db: Db) -> Result<Leases, ClusterStartError> {
        let run = NodeRun {
            node_id: config
                .cluster
                .node_id
                .clone()
                .unwrap_or_else(|| default_node_id(config)),
            incarnation: uuid::Uuid::new_v4().simple().to_string(),
        };
        let ttl = Duration::from_millis(config.cluster.lease_ms);
        let url = config.cluster.node_url.clone();
        let peers = db.register_node(&run, url.as_deref(), millis(ttl)).await?;
        if let Some(alone) = peers.iter().find(|p| url.is_none() || p.url.is_none()) {
            let PeerNode { node_id, url } = alone.clone();
            let url = url.unwrap_or_else(|| "alone, no KIBITZ_NODE_URL".into());
            return Err(ClusterStartError::AnotherNode { node: node_id, url });
        }
        tracing::info!(
            "node {} (run {}): {} other nodes serve this database",
            run.node_id,
            run.incarnation,
            peers.len()
        );
        Ok(Leases {
            db,
            run,
            url,
            valid_until: watch::channel(Instant::now() + ttl.mul_f64(0.9)).0,
            ttl,
            leader: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
        })
    }

    /// Whether this run may still act on what it holds.
    pub fn valid(&self) -> bool {
        Instant::now() < *self.valid_until.borrow()
    }

    pub(super) fn valid_until(&self) -> watch::Receiver<Instant> {
        self.valid_until.subscribe()
    }

    /// A renewal sent at `sent` went through.
    pub(super) fn renewed(&self, sent: Instant) {
        self.valid_until.send_replace(sent + self.ttl.mul_f64(0.9));
    }

    /// Whether this node runs the club-wide consolidation job now.
    pub fn leads(&self) -> bool {
        self.leader.load(Ordering::Acquire) && self.valid()
    }

    pub(super) fn set_leader(&self, leads: bool) {
        if self.leader.swap(leads, Ordering::AcqRel) != leads {
            tracing::info!(
                "node {} {} the consolidation job",
                self.run.node_id,
                match leads {
                    true => "now runs",
                    false => "no longer runs",
                }
            );
        }
    }

    /// A clean stop began: renewals go on while the matches finish, but
    /// no match is taken on.
    pub(super) fn stop_adopting(&self) {
        self.stopping.store(true, Ordering::Release);
    }

    pub(super) fn adopting(&self) -> bool {
        !self.stopping.load(Ordering::Acquire)
    }

    /// The lease on a match for this run (its epoch), or where it is held.
    pub async fn claim(&self, id: MatchId) -> Result<i64, RuntimeError> {
        match self.db.claim_match(&self.run, id, millis(self.ttl)).await? {
            Claim::Held { epoch } => Ok(epoch),
            Claim::Taken(holder) => {
                tracing::debug!(match_id = %id, "held by node {} for {} ms more", holder.node_id, holder.left_ms);
                Err(elsewhere(holder))
            }
            Claim::Changing => Err(RuntimeError::Unavailable),
        }
    }

    /// Gives a match's lease up; a failure only delays a takeover.
    pub async fn release(&self, id: MatchId, epoch: i64) {
        if let Err(e) = self.db.release_match(&self.run, id, epoch).await {
            tracing::warn!(match_id = %id, "the match's lease stays until it expires: {e}");
        }
    }

    /// Who else holds a match now: None if nobody does (or this run does,
    /// or the lease ran out), so this node may take it.
    pub async fn holder_elsewhere(&self, id: MatchId) -> Result<Option<Holder>, RuntimeError> {
        let holder = self.db.match_holder(id).await?;
        Ok(holder.filter(|h| h.incarnation != self.run.incarnation && h.left_ms >= 0 && h.node_id != self.run.node_id))
    }

    pub(super) fn db(&self) -> &Db {
        &self.db
    }
}

fn elsewhere(holder: Holder) -> RuntimeError {
    RuntimeError::HeldElsewhere {
        node: holder.node_id,
        retry_after_secs: u64::try_from(holder.left_ms / 1000 + 1).unwrap_or(1),
    }
}

pub(super) fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The host's name and a hash of the data dir: the same node after a
/// restart, another one for a second data dir on the same host.
fn default_node_id(config: &Config) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "kibitz".into());
    let dir = std::fs::canonicalize(&config.data_dir).unwrap_or_else(|_| config.data_dir.clone());
    let hash = Sha256::digest(dir.display().to_string().as_bytes());
    let short: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{host}-{short}")
}
