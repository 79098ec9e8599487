//! Really forgetting a memory: its words must not survive anywhere the API
//! can reach (events, trigger log, messages, LLM call logs, recall reasons,
//! reflections) nor in free pages of the database file; and nothing but its
//! owner's rows is ever touched.
//!
//! The rows to rewrite come from the memory's provenance (`memory_traces`,
//! written with each turn that quoted or used it): exact, and all inside the
//! owner's matches. A substring pass over the owner's rows, for texts long
//! enough to mean something, is the safety net for rows written before
//! provenance was kept.

use std::collections::{BTreeMap, BTreeSet};

use sqlx::Row;

use super::scrub::Forms;
use super::{Backend, Db, StoreError, StoreResult};
use crate::ids::{MemoryId, PlayerId};

/// The safety net looks only for texts at least this long: a shorter one
/// ("e", "ok") would match words that have nothing to do with the memory.
pub const NET_MIN_CHARS: usize = 12;

/// A table whose rows may quote a memory: rows are found by match and a key
/// (`seq` or `id`), and each listed column is scrubbed.
struct Place {
    table: &'static str,
    key: &'static str,
    columns: &'static [(&'static str, Shape)],
    /// How a trace names this table's rows of its turn.
    traced_by: TracedBy,
}

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Json,
    Text,
}

#[derive(Clone, Copy)]
enum TracedBy {
    /// This integer column holds the event's sequence number.
    Seq(&'static str),
    /// Every row of the match from the turn on (a model's append-only
    /// thread carries the words to every later call).
    Since(&'static str),
}

/// How long a VACUUM after an erasure waits for more erasures to share it.
const VACUUM_DELAY: std::time::Duration = std::time::Duration::from_secs(30);

const PLACES: [Place; 5] = [
    Place {
        table: "events",
        key: "seq",
        columns: &[("payload", Shape::Json)],
        traced_by: TracedBy::Seq("seq"),
    },
    Place {
        table: "messages",
        key: "id",
        columns: &[("content", Shape::Text)],
        traced_by: TracedBy::Seq("event_seq"),
    },
    Place {
        table: "trigger_log",
        key: "id",
        columns: &[("actions", Shape::Json)],
        traced_by: TracedBy::Seq("event_seq"),
    },
    Place {
        table: "llm_calls",
        key: "id",
        columns: &[("request", Shape::Json), ("response", Shape::Text)],
        traced_by: TracedBy::Since("created_at"),
    },
    Place {
        table: "recall_log",
        key: "id",
        columns: &[("reason", Shape::Text)],
        traced_by: TracedBy::Since("recalled_at"),
    },
];

/// One memory to forget, the forms of every text it ever had (versions,
/// reinforcing words, the player's words it was made from, what a model's
/// thread kept), and whose it is.
pub struct Erasure<'a> {
    pub id: MemoryId,
    pub owner: PlayerId,
    pub forms: &'a Forms,
}

/// What an erasure rewrote, for the log and the benchmark.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Erased {
    pub turns: usize,
    pub rows_rewritten: usize,
}

/// A traced turn, read back: events `first..=last` of `match_id`.
struct Turn {
    match_id: String,
    first: i64,
    last: i64,
    at: String,
}

/// A row found for rewriting: its match and key, and its scrubbed columns.
type Found = BTreeMap<(String, i64), Vec<Option<String>>>;

type Tx<'a> = sqlx::Transaction<'a, sqlx::Any>;

impl Db {
    /// Deletes the memory, its traces and versions, and scrubs its texts
    /// from every row of its owner's that quotes them.
    pub async fn erase_memory(&self, erasure: Erasure<'_>) -> StoreResult<Erased> {
        let forms = erasure.forms;
        let mut tx = self.pool.begin().await?;
        let turns = traced_turns(&mut tx, erasure.id, erasure.owner).await?;
        let mut erased = Erased {
            turns: turns.len(),
            rows_rewritten: 0,
        };
        for place in &PLACES {
            let mut found = Found::new();
            for turn in turns_for(place, &turns) {
                find_traced(&mut tx, place, turn, &mut found).await?;
            }
            if place.table == "events" {
                find_reflection_events(&mut tx, &turns, &mut found).await?;
            }
            for form in forms.iter().filter(|f| f.chars().count() >= NET_MIN_CHARS) {
                find_in_owners_rows(&mut tx, self.backend, place, erasure.owner, form, &mut found).await?;
            }
            erased.rows_rewritten += rewrite(&mut tx, place, found, forms).await?;
        }
        erased.rows_rewritten += forget_in_reflections(&mut tx, self.backend, &erasure, &turns, forms).await?;
        erased.rows_rewritten += forget_in_other_memories(&mut tx, &erasure).await?;
        delete_memory_rows(&mut tx, erasure.id).await?;
        tx.commit().await?;
        self.purge_old_versions().await?;
        Ok(erased)
    }

    /// Makes sure no old copy of erased text stays in the file: SQLite
    /// checkpoints the WAL (secure_delete overwrites freed pages);
    /// PostgreSQL vacuums away the dead row versions, once for the erasures
    /// of half a minute.
    async fn purge_old_versions(&self) -> StoreResult<()> {
        match self.backend {
            Backend::Sqlite => {
                let row = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                    .fetch_one(&self.pool)
                    .await?;
                let busy: i64 = row.get(0);
                if busy != 0 {
                    tracing::warn!("WAL checkpoint after erasure was partial; it completes at the next checkpoint");
                }
            }
            // One VACUUM for every erasure of the next half minute: run at
            // each, nine tables a time, a player's 30 deletions a minute
            // kept the database vacuuming. Autovacuum would get there too,
            // but when it likes; erased words should not linger long.
            Backend::Postgres => {
                if self.vacuum_pending.swap(true, std::sync::atomic::Ordering::AcqRel) {
                    return Ok(());
                }
                let (pool, pending) = (self.pool.clone(), self.vacuum_pending.clone());
                tokio::spawn(async move {
                    tokio::time::sleep(VACUUM_DELAY).await;
                    pending.store(false, std::sync::atomic::Ordering::Release);
                    if let Err(e) = sqlx::query(
                        "VACUUM memories, memory_versions, memory_traces, messages, events, trigger_log, llm_calls, \
                         recall_log, reflections",
                    )
                    .execute(&pool)
                    .await
                    {
                        tracing::warn!("VACUUM after erasures failed (autovacuum will get there): {e}");
                    }
                });
            }
        }
        Ok(())
    }
}

/// The memory's traces inside its owner's matches (a trace elsewhere cannot
/// exist; the join makes sure erasure never reaches one).
async fn traced_turns(tx: &mut Tx<'_>, id: MemoryId, owner: PlayerId) -> StoreResult<Vec<Turn>> {
    let rows = sqlx::query(
        "SELECT t.match_id, t.first_seq, t.last_seq, t.source_seq, t.at FROM memory_traces t \
         JOIN matches m ON m.id = t.match_id WHERE t.memory_id = $1 AND m.player_id = $2",
    )
    .bind(id.to_string())
    .bind(owner.to_string())
    .fetch_all(&mut **tx)
    .await?;
    let mut turns = Vec::new();
    for r in rows {
        let (match_id, at): (String, String) = (r.try_get(0)?, r.try_get(4)?);
        let (first, last): (i64, i64) = (r.try_get(1)?, r.try_get(2)?);
        // The player's words it was made from are a turn of their own.
        if let Some(source) = r.try_get::<Option<i64>, _>(3)? {
            turns.push(Turn {
                match_id: match_id.clone(),
                first: source,
                last: source,
                at: at.clone(),
            });
        }
        turns.push(Turn {
            match_id,
            first,
            last,
            at,
        });
    }
    Ok(turns)
}

/// The turns whose rows `place` must search: every turn for rows named by
/// sequence; for rows taken from a turn on, only each match's earliest
/// (a memory recalled in many turns of a match would search the same
/// calls again for each).
fn turns_for<'a>(place: &Place, turns: &'a [Turn]) -> Vec<&'a Turn> {
    match place.traced_by {
        TracedBy::Seq(_) => turns.iter().collect(),
        TracedBy::Since(_) => {
            let mut earliest: BTreeMap<&str, &Turn> = BTreeMap::new();
            for t in turns {
                let first = earliest.entry(&t.match_id).or_insert(t);
                if t.at < first.at {
                    *first = t;
                }
            }
            earliest.into_values().collect()
        }
    }
}

fn select_columns(place: &Place) -> String {
    let columns: Vec<&str> = place.columns.iter().map(|(c, _)| *c).collect();
    format!(
        "SELECT match_id, {}, {} FROM {}",
        place.key,
        columns.join(", "),
        place.table
    )
}

async fn collect(rows: Vec<sqlx::any::AnyRow>, place: &Place, found: &mut Found) -> StoreResult<()> {
    for r in rows {
        let key = (r.try_get::<String, _>(0)?, r.try_get::<i64, _>(1)?);
        let values = (0..place.columns.len())
            .map(|i| r.try_get::<Option<String>, _>(i + 2))
            .collect::<Result<Vec<_>, _>>()?;
        found.insert(key, values);
    }
    Ok(())
}

async fn find_traced(tx: &mut Tx<'_>, place: &Place, turn: &Turn, found: &mut Found) -> StoreResult<()> {
    let select = select_columns(place);
    let rows = match place.traced_by {
        TracedBy::Seq(column) => {
            sqlx::query(&format!("{select} WHERE match_id = $1 AND {column} BETWEEN $2 AND $3"))
                .bind(&turn.match_id)
                .bind(turn.first)
                .bind(turn.last)
                .fetch_all(&mut **tx)
                .await?
        }
        TracedBy::Since(column) => {
            sqlx::query(&format!("{select} WHERE match_id = $1 AND {column} >= $2"))
                .bind(&turn.match_id)
                .bind(&turn.at)
                .fetch_all(&mut **tx)
                .await?
        }
    };
    collect(rows, place, found).await
}

/// A traced match's `reflection` event may retell what it learned.
async fn find_reflection_events(tx: &mut Tx<'_>, turns: &[Turn], found: &mut Found) -> StoreResult<()> {
    let matches: BTreeSet<&str> = turns.iter().map(|t| t.match_id.as_str()).collect();
    let select = select_columns(&PLACES[0]);
    for m in matches {
        let rows = sqlx::query(&format!("{select} WHERE match_id = $1 AND kind = 'reflection'"))
            .bind(m)
            .fetch_all(&mut **tx)
            .await?;
        collect(rows, &PLACES[0], found).await?;
    }
    Ok(())
}

/// SQLite spells "contains" instr(), PostgreSQL strpos().
fn contains(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "instr",
        Backend::Postgres => "strpos",
    }
}

/// The safety net: the owner's rows holding `form`, found through the
/// owner's matches (indexed by player) and each table's match index.
async fn find_in_owners_rows(
    tx: &mut Tx<'_>,
    backend: Backend,
    place: &Place,
    owner: PlayerId,
    form: &str,
    found: &mut Found,
) -> StoreResult<()> {
    let holds: Vec<String> = place
        .columns
        .iter()
        .map(|(c, _)| format!("{}({c}, $2) > 0", contains(backend)))
        .collect();
    let sql = format!(
        "{} WHERE match_id IN (SELECT id FROM matches WHERE player_id = $1) AND ({})",
        select_columns(place),
        holds.join(" OR ")
    );
    let rows = sqlx::query(&sql)
        .bind(owner.to_string())
        .bind(form)
        .fetch_all(&mut **tx)
        .await?;
    collect(rows, place, found).await
}

/// Writes back each found row whose columns changed; how many did.
async fn rewrite(tx: &mut Tx<'_>, place: &Place, found: Found, forms: &Forms) -> StoreResult<usize> {
    let sets: Vec<String> = place
        .columns
        .iter()
        .enumerate()
        .map(|(i, (c, _))| format!("{c} = ${}", i + 1))
        .collect();
    let n = place.columns.len();
    let update = format!(
        "UPDATE {} SET {} WHERE match_id = ${} AND {} = ${}",
        place.table,
        sets.join(", "),
        n + 1,
        place.key,
        n + 2
    );
    let mut rewritten = 0;
    for ((match_id, key), values) in found {
        let mut changed = false;
        let scrubbed: Vec<Option<String>> = values
            .into_iter()
            .zip(place.columns)
            .map(|(value, (_, shape))| {
                let clean = value.as_deref().and_then(|v| match shape {
                    Shape::Json => forms.scrub_json_text(v),
                    Shape::Text => forms.scrub_text(v),
                });
                changed |= clean.is_some();
                clean.or(value)
            })
            .collect();
        if !changed {
            continue;
        }
        let mut query = sqlx::query(&update);
        for value in scrubbed {
            query = query.bind(value);
        }
        query.bind(match_id).bind(key).execute(&mut **tx).await?;
        rewritten += 1;
    }
    Ok(rewritten)
}

/// Drops the memory from the reflections of the matches that traced it (and
/// of the owner's that name it or quote a long text) and scrubs its texts
/// from their free-text fields.
async fn forget_in_reflections(
    tx: &mut Tx<'_>,
    backend: Backend,
    erasure: &Erasure<'_>,
    turns: &[Turn],
    forms: &Forms,
) -> StoreResult<usize> {
    let mut matches: BTreeSet<String> = turns.iter().map(|t| t.match_id.clone()).collect();
    let id = erasure.id.to_string();
    let owners = "match_id IN (SELECT id FROM matches WHERE player_id = $1)";
    let long = forms.iter().filter(|f| f.chars().count() >= NET_MIN_CHARS);
    for needle in std::iter::once(id.as_str()).chain(long) {
        let sql = format!(
            "SELECT match_id FROM reflections WHERE {owners} AND {}(body, $2) > 0",
            contains(backend)
        );
        for row in sqlx::query(&sql)
            .bind(erasure.owner.to_string())
            .bind(needle)
            .fetch_all(&mut **tx)
            .await?
        {
            matches.insert(row.try_get(0)?);
        }
    }
    let corrupt = |e: serde_json::Error| StoreError::Corrupt {
        table: "reflections",
        detail: e.to_string(),
    };
    let mut rewritten = 0;
    for match_id in matches {
        let Some(row) = sqlx::query("SELECT body FROM reflections WHERE match_id = $1")
            .bind(&match_id)
            .fetch_optional(&mut **tx)
            .await?
        else {
            continue;
        };
        let body: String = row.try_get(0)?;
        let mut reflection: serde_json::Value = serde_json::from_str(&body).map_err(corrupt)?;
        if !super::scrub::forget_in_reflection(&mut reflection, &id, |text| forms.scrub_text(text)) {
            continue;
        }
        sqlx::query("UPDATE reflections SET body = $1 WHERE match_id = $2")
            .bind(serde_json::to_string(&reflection).map_err(corrupt)?)
            .bind(match_id)
            .execute(&mut **tx)
            .await?;
        rewritten += 1;
    }
    Ok(rewritten)
}

/// A merge keeps the retired memory's words as a source of the one that
/// absorbed it (`strength::absorb`): those sources, in the owner's other
/// memories, go too (an entry that is one of the texts is dropped; others
/// are scrubbed).
async fn forget_in_other_memories(tx: &mut Tx<'_>, erasure: &Erasure<'_>) -> StoreResult<usize> {
    let rows = sqlx::query(
        "SELECT id, reinforcements FROM memories WHERE player_id = $1 AND id <> $2 AND reinforcements <> '[]'",
    )
    .bind(erasure.owner.to_string())
    .bind(erasure.id.to_string())
    .fetch_all(&mut **tx)
    .await?;
    let mut rewritten = 0;
    for row in rows {
        let (id, text): (String, String) = (row.try_get(0)?, row.try_get(1)?);
        let Ok(serde_json::Value::Array(mut sources)) = serde_json::from_str(&text) else {
            continue;
        };
        let before = sources.len();
        let said = |s: &serde_json::Value| s["content"].as_str().unwrap_or_default().trim().to_string();
        sources.retain(|s| !erasure.forms.iter().any(|f| f == said(s)));
        // Only the words: a source's match id and time are typed fields.
        let mut scrubbed = false;
        for source in &mut sources {
            scrubbed |= erasure.forms.scrub_json(&mut source["content"]);
        }
        if !scrubbed && sources.len() == before {
            continue;
        }
        sqlx::query("UPDATE memories SET reinforcements = $1 WHERE id = $2")
            .bind(serde_json::Value::Array(sources).to_string())
            .bind(id)
            .execute(&mut **tx)
            .await?;
        rewritten += 1;
    }
    Ok(rewritten)
}

async fn delete_memory_rows(tx: &mut Tx<'_>, id: MemoryId) -> StoreResult<()> {
    for sql in [
        "UPDATE memories SET superseded_by = NULL WHERE superseded_by = $1",
        "DELETE FROM memory_traces WHERE memory_id = $1",
        // Its versions and recall log go with it (ON DELETE CASCADE).
        "DELETE FROM memories WHERE id = $1",
    ] {
        sqlx::query(sql).bind(id.to_string()).execute(&mut **tx).await?;
    }
    Ok(())
}
