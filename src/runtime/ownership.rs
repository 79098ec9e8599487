//! Several nodes, one club: which node runs a match, and what happens when
//! one goes. Every third of the lease time a node renews its leases (one
//! statement for all of them), takes the consolidation role if nobody holds
//! it, drops the matches it no longer holds, and adopts matches nobody
//! holds (a crashed node's, once their leases ran out). If renewing fails
//! until the lease time is nearly over, the node stops every match it runs
//! (`fence`): by then another node may take them.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use super::Runtime;
use super::RuntimeError;
use super::leases::{CONSOLIDATION_ROLE, Leases, millis};
use crate::ids::MatchId;

/// Matches adopted per renewal at most, so a node that survives a crash
/// takes the dead node's games a batch at a time, beside the others.
const ADOPT_AT_ONCE: i64 = 32;

/// Where a match's requests are served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Here: this node runs it, may take it, or it is finished.
    Here,
    /// At the node that holds its lease.
    At {
        node: String,
        url: String,
        retry_after_secs: u64,
    },
}

impl Runtime {
    /// Renews once (the start may have taken longer than a lease), then
    /// renews, fences and adopts in the background (on PostgreSQL).
    pub(super) async fn keep_leases(&self) {
        let Some(leases) = self.svc.leases.clone() else {
            return;
        };
        self.renew(&leases).await;
        let every = leases.ttl / 3;
        let runtime = self.clone();
        let keeper = tokio::spawn(async move {
            let start = tokio::time::Instant::now() + every;
            let mut tick = tokio::time::interval_at(start, every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                runtime.renew(&leases).await;
                runtime.adopt_orphans(&leases).await;
            }
        });
        let fence = tokio::spawn(self.clone().fence(self.svc.leases.clone().expect("leases")));
        let mut tasks = self.lease_tasks.lock().expect("lease tasks lock");
        tasks.extend([keeper.abort_handle(), fence.abort_handle()]);
    }

    /// Where a match's requests go: to the node holding its lease, unless
    /// that is this one or nobody holds it (this node then takes it).
    pub async fn place(&self, id: MatchId) -> Result<Placement, RuntimeError> {
        let Some(leases) = &self.svc.leases else {
            return Ok(Placement::Here);
        };
        // A node serving alone has nobody to relay to (it refused to start
        // beside another): no lookup on every request.
        if leases.url.is_none() || self.is_live(id) {
            return Ok(Placement::Here);
        }
        match leases.holder_elsewhere(id).await? {
            None => Ok(Placement::Here),
            Some(holder) => Ok(Placement::At {
                retry_after_secs: u64::try_from(holder.left_ms / 1000 + 1).unwrap_or(1),
                url: holder.url.ok_or(RuntimeError::Unavailable)?,
                node: holder.node_id,
            }),
        }
    }

    /// Where the other live nodes of the club take requests.
    pub async fn peer_urls(&self) -> Result<Vec<String>, RuntimeError> {
        let Some(leases) = &self.svc.leases else {
            return Ok(Vec::new());
        };
        let peers = leases.db().peer_nodes(&leases.run, millis(leases.ttl)).await?;
        Ok(peers.into_iter().filter_map(|p| p.url).collect())
    }

    /// This node's part in the club: its name, and whether it leads.
    pub fn node(&self) -> Option<(&str, bool)> {
        let leases = self.svc.leases.as_ref()?;
        Some((leases.run.node_id.as_str(), leases.leads()))
    }

    async fn renew(&self, leases: &Leases) {
        let sent = Instant::now();
        let renewal = leases.db().renew_leases(&leases.run, millis(leases.ttl));
        match tokio::time::timeout(leases.ttl / 3, renewal).await {
            Ok(Ok(Some(held))) => {
                leases.renewed(sent);
                let held: HashSet<MatchId> = held.into_iter().collect();
                // A match claimed after the renewal was sent is not in it.
                let lost = self.evict(|id, claimed| claimed < sent && !held.contains(&id));
                if lost > 0 {
                    tracing::warn!("{lost} matches were taken over by other nodes and stop here");
                }
                let role = leases
                    .db()
                    .claim_role(&leases.run, CONSOLIDATION_ROLE, millis(leases.ttl));
                leases.set_leader(role.await.unwrap_or(false));
            }
            Ok(Ok(None)) => {
                tracing::error!(
                    "another process now runs as node {}: this one stops its matches",
                    leases.run.node_id
                );
                self.evict(|_, _| true);
            }
            Ok(Err(e)) => tracing::warn!("renewing this node's leases failed: {e}"),
            Err(_) => tracing::warn!("renewing this node's leases took over {:?}", leases.ttl / 3),
        }
    }

    /// Stops every match here once the lease time (less a margin) has
    /// passed since the last renewal went through.
    async fn fence(self, leases: Arc<Leases>) {
        let mut until = leases.valid_until();
        loop {
            let deadline = *until.borrow_and_update();
            tokio::select! {
                _ = tokio::time::sleep_until(deadline.into()) => {
                    if !leases.valid() {
                        let stopped = self.evict(|_, _| true);
                        tracing::error!("this node's leases could not be renewed in time: {stopped} matches stop here");
                        if until.changed().await.is_err() {
                            return;
                        }
                    }
                }
                changed = until.changed() => if changed.is_err() {
                    return;
                },
            }
        }
    }

    /// Takes unfinished matches nobody holds, a batch at a time.
    async fn adopt_orphans(&self, leases: &Leases) {
        if !leases.adopting() {
            return;
        }
        let orphans = match leases.db().orphaned_matches(&leases.run, ADOPT_AT_ONCE).await {
            Ok(orphans) => orphans,
            Err(e) => {
                tracing::warn!("looking for matches nobody holds failed: {e}");
                return;
            }
        };
        let orphans: Vec<MatchId> = orphans.into_iter().filter(|id| !self.is_live(*id)).collect();
        if !orphans.is_empty() {
            tracing::info!("taking over {} matches nobody holds", orphans.len());
        }
        for id in orphans {
            self.resume(id).await;
        }
    }

    /// Unfinished matches this node should load at start: all of them when
    /// it serves alone on SQLite, else those nobody holds.
    pub(super) async fn unfinished_to_load(&self) -> Result<Vec<MatchId>, RuntimeError> {
        Ok(match &self.svc.leases {
            Some(leases) => leases.db().orphaned_matches(&leases.run, i64::MAX).await?,
            None => self.svc.db.active_match_ids().await?,
        })
    }

    /// A clean stop's first step: no match is taken on any more.
    pub(super) fn stop_adopting(&self) {
        if let Some(leases) = &self.svc.leases {
            leases.stop_adopting();
        }
    }

    /// A clean stop's last step: the other nodes may take this node's
    /// matches at once rather than after the lease time.
    pub(super) async fn release_leases(&self, all_ended: bool) {
        for task in self.lease_tasks.lock().expect("lease tasks lock").drain(..) {
            task.abort();
        }
        if all_ended
            && let Some(leases) = &self.svc.leases
            && let Err(e) = leases.db().release_node(&leases.run).await
        {
            tracing::warn!("this node's leases stay until they expire: {e}");
        }
    }
}
