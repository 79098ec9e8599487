//! Invite codes: issued by the admin, each good once until it expires.
//! Stored by hash; taking one is a single conditional update, so two
//! registrations racing for the same code cannot both win it.

use chrono::{DateTime, Utc};

use super::{Db, StoreResult, ts};

impl Db {
    pub async fn insert_invite(&self, code_hash: &str, expires_at: DateTime<Utc>) -> StoreResult<()> {
        sqlx::query("INSERT INTO invites (code_hash, created_at, expires_at) VALUES ($1, $2, $3)")
            .bind(code_hash)
            .bind(ts(Utc::now()))
            .bind(ts(expires_at))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Marks the code used, if it is unused and unexpired; whether it was.
    pub async fn take_invite(&self, code_hash: &str) -> StoreResult<bool> {
        let now = ts(Utc::now());
        let taken =
            sqlx::query("UPDATE invites SET used_at = $1 WHERE code_hash = $2 AND used_at IS NULL AND expires_at > $1")
                .bind(&now)
                .bind(code_hash)
                .execute(&self.pool)
                .await?;
        Ok(taken.rows_affected() == 1)
    }

    /// Gives back a code taken for a player who was then not created.
    pub async fn release_invite(&self, code_hash: &str) -> StoreResult<()> {
        sqlx::query("UPDATE invites SET used_at = NULL WHERE code_hash = $1 AND player_id IS NULL")
            .bind(code_hash)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Notes which player an invite let in.
    pub async fn invite_used_by(&self, code_hash: &str, player: &str) -> StoreResult<()> {
        sqlx::query("UPDATE invites SET player_id = $1 WHERE code_hash = $2")
            .bind(player)
            .bind(code_hash)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
