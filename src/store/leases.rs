//! Who runs what when several nodes share one PostgreSQL: the nodes and
//! their heartbeats, a lease per live match, the history of every change
//! of holder, and leases on roles one node plays for the club. Every time
//! is the database's clock (ms since the epoch), never a node's.
//! PostgreSQL only: SQLite is one process's file.

use sqlx::{Any, Row, Transaction};

use super::{Db, StoreResult, parse_id};
use crate::ids::MatchId;

/// The database's clock, in ms since the epoch.
const NOW_MS: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

/// One run of one node: its stable name, and this process's own id (a
/// restarted node has a new incarnation and takes its old leases back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRun {
    pub node_id: String,
    pub incarnation: String,
}

/// Another node that renewed its heartbeat within the lease time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerNode {
    pub node_id: String,
    pub url: Option<String>,
}

/// Who holds a match, and for how much longer unless it renews.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub node_id: String,
    pub incarnation: String,
    /// Where that node takes requests (None: a node serving alone).
    pub url: Option<String>,
    /// Until the lease expires; negative once it has.
    pub left_ms: i64,
}

/// What a claim on a match's lease came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This run holds it, under this epoch (one per change of holder).
    Held { epoch: i64 },
    /// Another run holds an unexpired lease on it.
    Taken(Holder),
    /// Another run took it and gave it up while this claim ran: try again.
    Changing,
}

/// One change of holder, as `lease_history` keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseChange {
    pub match_id: MatchId,
    pub epoch: i64,
    pub node_id: String,
    pub incarnation: String,
    pub acquired_ms: i64,
    pub released_ms: Option<i64>,
    /// Set when the lease was taken over from a holder whose lease had
    /// expired (or from this node's previous run): that holder and when
    /// its lease ran out.
    pub previous_incarnation: Option<String>,
    pub previous_expires_ms: Option<i64>,
}

impl Db {
    /// Other nodes that beat within `ttl_ms`, then this run's heartbeat row.
    pub async fn register_node(&self, me: &NodeRun, url: Option<&str>, ttl_ms: i64) -> StoreResult<Vec<PeerNode>> {
        let peers = self.peer_nodes(me, ttl_ms).await?;
        sqlx::query(&format!(
            "INSERT INTO nodes (node_id, incarnation, url, started_ms, seen_ms) \
             VALUES ($1, $2, $3, {NOW_MS}, {NOW_MS}) ON CONFLICT (node_id) DO UPDATE SET \
             incarnation = excluded.incarnation, url = excluded.url, \
             started_ms = excluded.started_ms, seen_ms = excluded.seen_ms"
        ))
        .bind(&me.node_id)
        .bind(&me.incarnation)
        .bind(url)
        .execute(&self.pool)
        .await?;
        Ok(peers)
    }

    /// Other nodes that beat within `ttl_ms`.
    pub async fn peer_nodes(&self, me: &NodeRun, ttl_ms: i64) -> StoreResult<Vec<PeerNode>> {
        let rows = sqlx::query(&format!(
            "SELECT node_id, url FROM nodes WHERE node_id <> $1 AND seen_ms > {NOW_MS} - $2 ORDER BY node_id"
        ))
        .bind(&me.node_id)
        .bind(ttl_ms)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|r| PeerNode {
                node_id: r.get("node_id"),
                url: r.get("url"),
            })
            .collect())
    }

    /// Renews this run's heartbeat and its unexpired match leases by
    /// `ttl_ms`; the matches it still holds. None if another run took this
    /// node's name (a second process with the same node id).
    pub async fn renew_leases(&self, me: &NodeRun, ttl_ms: i64) -> StoreResult<Option<Vec<MatchId>>> {
        let beat = sqlx::query(&format!(
            "UPDATE nodes SET seen_ms = {NOW_MS} WHERE node_id = $1 AND incarnation = $2"
        ))
        .bind(&me.node_id)
        .bind(&me.incarnation)
        .execute(&self.pool)
        .await?;
        if beat.rows_affected() == 0 {
            return Ok(None);
        }
        // An expired lease is not renewed: another node may be taking it.
        let rows = sqlx::query(&format!(
            "UPDATE match_leases SET expires_ms = {NOW_MS} + $2 \
             WHERE incarnation = $1 AND expires_ms > {NOW_MS} RETURNING match_id"
        ))
        .bind(&me.incarnation)
        .bind(ttl_ms)
        .fetch_all(&self.pool)
        .await?;
        let held = rows.iter().map(|r| parse_id("match_leases", r.get("match_id")));
        Ok(Some(held.collect::<StoreResult<_>>()?))
    }

    /// Takes the lease on a match for `ttl_ms` unless another run holds an
    /// unexpired one. A lease of this node's earlier run is taken back at
    /// once: that process is gone (a node's name is its own).
    pub async fn claim_match(&self, me: &NodeRun, id: MatchId, ttl_ms: i64) -> StoreResult<Claim> {
        let mut tx = self.pool.begin().await?;
        let current = sqlx::query(&format!(
            "SELECT {HOLDER} FROM match_leases l LEFT JOIN nodes n ON n.node_id = l.node_id \
             WHERE l.match_id = $1 FOR UPDATE OF l"
        ))
        .bind(id.to_string())
        .fetch_optional(&mut *tx)
        .await?
        .map(|r| {
            (
                holder_from_row(&r),
                r.get::<i64, _>("epoch"),
                r.get::<i64, _>("expires_ms"),
            )
        });
        let claim = match current {
            Some((holder, epoch, _)) if holder.incarnation == me.incarnation => {
                extend(&mut tx, id, ttl_ms).await?;
                Claim::Held { epoch }
            }
            Some((holder, _, _)) if holder.left_ms >= 0 && holder.node_id != me.node_id => Claim::Taken(holder),
            previous => {
                let previous = previous.map(|(h, _, expires_ms)| (h.incarnation, expires_ms));
                take(&mut tx, me, id, ttl_ms, previous).await?
            }
        };
        tx.commit().await?;
        Ok(claim)
    }

    /// Gives a match's lease up (its game ended, or this node stops).
    pub async fn release_match(&self, me: &NodeRun, id: MatchId, epoch: i64) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        let gone = sqlx::query("DELETE FROM match_leases WHERE match_id = $1 AND incarnation = $2 AND epoch = $3")
            .bind(id.to_string())
            .bind(&me.incarnation)
            .bind(epoch)
            .execute(&mut *tx)
            .await?;
        if gone.rows_affected() > 0 {
            sqlx::query(&format!(
                "UPDATE lease_history SET released_ms = {NOW_MS} WHERE match_id = $1 AND epoch = $2"
            ))
            .bind(id.to_string())
            .bind(epoch)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// A clean stop: every lease and role of this run given up, its
    /// heartbeat row gone, so other nodes take its matches at once.
    pub async fn release_node(&self, me: &NodeRun) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(&format!(
            "UPDATE lease_history h SET released_ms = {NOW_MS} FROM match_leases l \
             WHERE l.incarnation = $1 AND h.match_id = l.match_id AND h.epoch = l.epoch"
        ))
        .bind(&me.incarnation)
        .execute(&mut *tx)
        .await?;
        for table in ["match_leases", "leader_leases", "nodes"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE incarnation = $1"))
                .bind(&me.incarnation)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Who holds a match's lease, if anyone (expired ones included).
    pub async fn match_holder(&self, id: MatchId) -> StoreResult<Option<Holder>> {
        let mut conn = self.pool.acquire().await?;
        holder(&mut conn, id).await
    }

    /// Unfinished matches nobody holds: no lease, an expired one, or one of
    /// this node's earlier run. Oldest first, at most `limit`.
    pub async fn orphaned_matches(&self, me: &NodeRun, limit: i64) -> StoreResult<Vec<MatchId>> {
        let rows = sqlx::query(&format!(
            "SELECT m.id FROM matches m LEFT JOIN match_leases l ON l.match_id = m.id \
             WHERE m.status = 'active' AND (l.match_id IS NULL OR l.expires_ms < {NOW_MS} \
             OR (l.node_id = $1 AND l.incarnation <> $2)) ORDER BY m.created_at LIMIT $3"
        ))
        .bind(&me.node_id)
        .bind(&me.incarnation)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| parse_id("matches", r.get("id"))).collect()
    }

    /// Takes or renews a club-wide role for `ttl_ms`; true if this run has it.
    pub async fn claim_role(&self, me: &NodeRun, role: &str, ttl_ms: i64) -> StoreResult<bool> {
        let row = sqlx::query(&format!(
            "INSERT INTO leader_leases (role, node_id, incarnation, expires_ms) VALUES ($1, $2, $3, {NOW_MS} + $4) \
             ON CONFLICT (role) DO UPDATE SET node_id = excluded.node_id, incarnation = excluded.incarnation, \
             expires_ms = excluded.expires_ms \
             WHERE leader_leases.incarnation = excluded.incarnation OR leader_leases.expires_ms < {NOW_MS} \
             RETURNING role"
        ))
        .bind(role)
        .bind(&me.node_id)
        .bind(&me.incarnation)
        .bind(ttl_ms)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.is_some())
    }

    /// Every change of holder, by match then epoch.
    pub async fn lease_history(&self) -> StoreResult<Vec<LeaseChange>> {
        let rows = sqlx::query(
            "SELECT match_id, epoch, node_id, incarnation, acquired_ms, released_ms, \
             previous_incarnation, previous_expires_ms FROM lease_history ORDER BY match_id, epoch",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(LeaseChange {
                    match_id: parse_id("lease_history", r.get("match_id"))?,
                    epoch: r.get("epoch"),
                    node_id: r.get("node_id"),
                    incarnation: r.get("incarnation"),
                    acquired_ms: r.get("acquired_ms"),
                    released_ms: r.get("released_ms"),
                    previous_incarnation: r.get("previous_incarnation"),
                    previous_expires_ms: r.get("previous_expires_ms"),
                })
            })
            .collect()
    }
}

/// The columns `holder_from_row` reads (and the epoch and expiry).
const HOLDER: &str = "l.node_id, l.incarnation, l.epoch, l.expires_ms, \
    l.expires_ms - (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT AS left_ms, n.url";

async fn holder(conn: &mut sqlx::AnyConnection, id: MatchId) -> StoreResult<Option<Holder>> {
    let row = sqlx::query(&format!(
        "SELECT {HOLDER} FROM match_leases l LEFT JOIN nodes n ON n.node_id = l.node_id WHERE l.match_id = $1"
    ))
    .bind(id.to_string())
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|r| holder_from_row(&r)))
}

fn holder_from_row(r: &sqlx::any::AnyRow) -> Holder {
    Holder {
        node_id: r.get("node_id"),
        incarnation: r.get("incarnation"),
        url: r.get("url"),
        left_ms: r.get("left_ms"),
    }
}

async fn extend(tx: &mut Transaction<'_, Any>, id: MatchId, ttl_ms: i64) -> StoreResult<()> {
    sqlx::query(&format!(
        "UPDATE match_leases SET expires_ms = {NOW_MS} + $2 WHERE match_id = $1"
    ))
    .bind(id.to_string())
    .bind(ttl_ms)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A new holder: the next epoch, in the lease and in the history.
/// `previous`: the expired (or this node's earlier) holder's run and expiry,
/// its row locked; with none, two nodes may race to insert one, and the
/// loser finds the winner's.
async fn take(
    tx: &mut Transaction<'_, Any>,
    me: &NodeRun,
    id: MatchId,
    ttl_ms: i64,
    previous: Option<(String, i64)>,
) -> StoreResult<Claim> {
    let epoch: i64 = sqlx::query("SELECT COALESCE(MAX(epoch), 0) + 1 AS epoch FROM lease_history WHERE match_id = $1")
        .bind(id.to_string())
        .fetch_one(&mut **tx)
        .await?
        .get("epoch");
    let written = sqlx::query(&format!(
        "INSERT INTO match_leases (match_id, node_id, incarnation, epoch, acquired_ms, expires_ms) \
         VALUES ($1, $2, $3, $4, {NOW_MS}, {NOW_MS} + $5) ON CONFLICT (match_id) DO UPDATE SET \
         node_id = excluded.node_id, incarnation = excluded.incarnation, epoch = excluded.epoch, \
         acquired_ms = excluded.acquired_ms, expires_ms = excluded.expires_ms \
         WHERE $6 RETURNING acquired_ms"
    ))
    .bind(id.to_string())
    .bind(&me.node_id)
    .bind(&me.incarnation)
    .bind(epoch)
    .bind(ttl_ms)
    // Overwriting is only right for the row read under FOR UPDATE.
    .bind(previous.is_some())
    .fetch_optional(&mut **tx)
    .await?;
    let Some(written) = written else {
        // Read committed: this statement sees the row the winner committed.
        let winner = holder(tx, id).await?;
        return Ok(winner.map_or(Claim::Changing, Claim::Taken));
    };
    let acquired_ms: i64 = written.get("acquired_ms");
    sqlx::query(
        "INSERT INTO lease_history (match_id, epoch, node_id, incarnation, acquired_ms, \
         previous_incarnation, previous_expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(id.to_string())
    .bind(epoch)
    .bind(&me.node_id)
    .bind(&me.incarnation)
    .bind(acquired_ms)
    .bind(previous.as_ref().map(|(incarnation, _)| incarnation.clone()))
    .bind(previous.map(|(_, expires_ms)| expires_ms))
    .execute(&mut **tx)
    .await?;
    Ok(Claim::Held { epoch })
}
