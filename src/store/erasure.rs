//! Really forgetting: a deleted memory's text must not survive anywhere the
//! API can reach (events, trigger log, the persona's messages) nor in free
//! pages of the database file.

use sqlx::Row;

use super::{Db, StoreResult};
use crate::ids::MemoryId;

const ERASED: &str = "[forgotten]";

impl Db {
    /// Deletes the memory row and scrubs its texts (its content and every
    /// reinforcing source's words) from every stored copy.
    pub async fn erase_memory(&self, id: MemoryId, texts: &[&str]) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?")
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM memories WHERE id = ?")
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        for content in texts {
            sqlx::query("UPDATE messages SET content = REPLACE(content, ?, ?) WHERE instr(content, ?) > 0")
                .bind(content)
                .bind(ERASED)
                .bind(content)
                .execute(&mut *tx)
                .await?;
            // Events and the trigger log hold JSON; the text appears JSON-escaped there.
            let escaped = serde_json::to_string(content).unwrap_or_default();
            let inner = escaped.trim_matches('"').to_string();
            for table in ["events", "trigger_log"] {
                let column = if table == "events" { "payload" } else { "actions" };
                sqlx::query(&format!(
                    "UPDATE {table} SET {column} = REPLACE({column}, ?, ?) WHERE instr({column}, ?) > 0"
                ))
                .bind(&inner)
                .bind(ERASED)
                .bind(&inner)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        // Push the change out of the WAL so old pages are overwritten (secure_delete is on).
        let row = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .fetch_one(&self.pool)
            .await?;
        let busy: i64 = row.get(0);
        if busy != 0 {
            tracing::warn!("WAL checkpoint after erasure was partial; it completes at the next checkpoint");
        }
        Ok(())
    }
}
