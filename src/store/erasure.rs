//! Really forgetting: a deleted memory's text must not survive anywhere the
//! API can reach (events, trigger log, the persona's messages, LLM call
//! logs, reflections) nor in free pages of the database file.

use sqlx::Row;

use super::{Backend, Db, StoreResult};
use crate::ids::MemoryId;

const ERASED: &str = "[forgotten]";

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
            // Events and the trigger log hold JSON; the text appears JSON-escaped there.
            let escaped = serde_json::to_string(content).unwrap_or_default();
            let inner = escaped.trim_matches('"').to_string();
            // LLM prompts carry it JSON-escaped; answers raw or escaped.
            let places = [
                ("messages", "content", content.to_string()),
                ("events", "payload", inner.clone()),
                ("trigger_log", "actions", inner.clone()),
                ("llm_calls", "request", inner.clone()),
                ("llm_calls", "response", content.to_string()),
                ("llm_calls", "response", inner.clone()),
                ("reflections", "body", inner),
            ];
            for (table, column, text) in places {
                sqlx::query(&format!(
                    "UPDATE {table} SET {column} = REPLACE({column}, $1, $2) WHERE {contains}({column}, $3) > 0"
                ))
                .bind(&text)
                .bind(ERASED)
                .bind(&text)
                .execute(&mut *tx)
                .await?;
            }
        }
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
