//! Really forgetting: a deleted memory's text must not survive anywhere the
//! API can reach (events, trigger log, the persona's messages, LLM call
//! logs, reflections) nor in free pages of the database file.

use serde_json::Value;
use sqlx::Row;

use super::{Backend, Db, StoreError, StoreResult};
use crate::ids::MemoryId;

const ERASED: &str = "[forgotten]";

/// A column holding JSON, and the columns that find one of its rows.
struct JsonPlace {
    table: &'static str,
    column: &'static str,
    /// Key columns, compared as text so one code path serves every table.
    keys: &'static [&'static str],
}

/// Text is scrubbed inside these JSON documents' strings, never across their
/// syntax: a short memory such as "0" must not turn `"moves":0` into garbage.
/// They are read back as free JSON, for display; reflections, read back as a
/// typed record, are scrubbed field by field (`Reflection::forget`).
const JSON_PLACES: [JsonPlace; 3] = [
    JsonPlace {
        table: "events",
        column: "payload",
        keys: &["match_id", "seq"],
    },
    JsonPlace {
        table: "trigger_log",
        column: "actions",
        keys: &["id"],
    },
    JsonPlace {
        table: "llm_calls",
        column: "request",
        keys: &["id"],
    },
];

impl Db {
    /// Deletes the memory row and scrubs its texts (its content and every
    /// reinforcing source's words) from every stored copy.
    pub async fn erase_memory(&self, id: MemoryId, texts: &[&str]) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE memories SET superseded_by = NULL WHERE superseded_by = $1")
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM memories WHERE id = $1")
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        // SQLite spells "contains" instr(), PostgreSQL strpos().
        let contains = match self.backend {
            Backend::Sqlite => "instr",
            Backend::Postgres => "strpos",
        };
        for content in texts {
            scrub_text_columns(&mut tx, contains, content).await?;
            for place in JSON_PLACES {
                scrub_json_column(&mut tx, contains, place, content).await?;
            }
        }
        forget_in_reflections(&mut tx, contains, id, texts).await?;
        tx.commit().await?;
        self.purge_old_versions().await
    }

    /// Makes sure no old copy of erased text stays in the file: SQLite
    /// checkpoints the WAL (secure_delete overwrites freed pages);
    /// PostgreSQL vacuums away the dead row versions.
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
            Backend::Postgres => {
                sqlx::query("VACUUM memories, messages, events, trigger_log, llm_calls, reflections")
                    .execute(&self.pool)
                    .await?;
            }
        }
        Ok(())
    }
}

type Tx<'a> = sqlx::Transaction<'a, sqlx::Any>;

/// Plain-text columns: the persona's messages and the models' raw answers.
async fn scrub_text_columns(tx: &mut Tx<'_>, contains: &str, content: &str) -> StoreResult<()> {
    for (table, column) in [("messages", "content"), ("llm_calls", "response")] {
        sqlx::query(&format!(
            "UPDATE {table} SET {column} = REPLACE({column}, $1, $2) WHERE {contains}({column}, $3) > 0"
        ))
        .bind(content)
        .bind(ERASED)
        .bind(content)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// Rewrites each JSON document that mentions `content` with it scrubbed
/// from every string inside.
async fn scrub_json_column(tx: &mut Tx<'_>, contains: &str, place: JsonPlace, content: &str) -> StoreResult<()> {
    let JsonPlace { table, column, keys } = place;
    // In stored JSON the text appears escaped; that finds the candidates.
    let escaped = serde_json::to_string(content).unwrap_or_default();
    let needle = escaped.trim_matches('"');
    let key_list: Vec<String> = keys.iter().map(|k| format!("CAST({k} AS TEXT)")).collect();
    let select = format!(
        "SELECT {}, {column} FROM {table} WHERE {contains}({column}, $1) > 0",
        key_list.join(", ")
    );
    let rows = sqlx::query(&select).bind(needle).fetch_all(&mut **tx).await?;
    let matches: Vec<String> = key_list
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{k} = ${}", i + 2))
        .collect();
    let update = format!("UPDATE {table} SET {column} = $1 WHERE {}", matches.join(" AND "));
    for row in rows {
        let text: String = row.try_get(keys.len())?;
        let Ok(mut doc) = serde_json::from_str::<Value>(&text) else {
            tracing::warn!("{table}.{column} holds a row that is not JSON; left as it is");
            continue;
        };
        scrub(&mut doc, content);
        let body = serde_json::to_string(&doc).map_err(|e| StoreError::Corrupt {
            table,
            detail: e.to_string(),
        })?;
        let mut query = sqlx::query(&update).bind(body);
        for i in 0..keys.len() {
            query = query.bind(row.try_get::<String, _>(i)?);
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

/// Replaces `content` in every string of `doc` (keys stay: they are ours).
fn scrub(doc: &mut Value, content: &str) {
    match doc {
        Value::String(s) if s.contains(content) => *s = s.replace(content, ERASED),
        Value::Array(items) => items.iter_mut().for_each(|v| scrub(v, content)),
        Value::Object(map) => map.values_mut().for_each(|v| scrub(v, content)),
        _ => {}
    }
}

/// Drops the memory from every reflection that learned it and scrubs its
/// texts from the free-text fields of any that quote them.
async fn forget_in_reflections(tx: &mut Tx<'_>, contains: &str, id: MemoryId, texts: &[&str]) -> StoreResult<()> {
    let select = format!("SELECT match_id, body FROM reflections WHERE {contains}(body, $1) > 0");
    let escaped = texts.iter().map(|t| serde_json::to_string(t).unwrap_or_default());
    let needles: Vec<String> = std::iter::once(id.to_string())
        .chain(escaped.map(|e| e.trim_matches('"').to_string()))
        .collect();
    let mut found = std::collections::BTreeMap::new();
    for needle in &needles {
        for row in sqlx::query(&select).bind(needle).fetch_all(&mut **tx).await? {
            found.insert(row.try_get::<String, _>(0)?, row.try_get::<String, _>(1)?);
        }
    }
    let corrupt = |e: serde_json::Error| StoreError::Corrupt {
        table: "reflections",
        detail: e.to_string(),
    };
    for (match_id, body) in found {
        let mut reflection: crate::reflection::Reflection = serde_json::from_str(&body).map_err(corrupt)?;
        reflection.forget(&id.to_string(), texts, ERASED);
        sqlx::query("UPDATE reflections SET body = $1 WHERE match_id = $2")
            .bind(serde_json::to_string(&reflection).map_err(corrupt)?)
            .bind(match_id)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrubbing_touches_strings_not_json_syntax() {
        let mut doc = serde_json::json!({ "moves": 0, "learned": [{ "content": "I was born in 1990" }], "n": "10" });
        scrub(&mut doc, "0");
        assert_eq!(doc["moves"], 0);
        assert_eq!(doc["learned"][0]["content"], "I was born in 199[forgotten]");
        assert_eq!(doc["n"], "1[forgotten]");
        let mut doc = serde_json::json!(["likes \"quotes\"", 1]);
        scrub(&mut doc, "\"quotes\"");
        assert_eq!(doc, serde_json::json!(["likes [forgotten]", 1]));
    }
}
