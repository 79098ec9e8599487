use chrono::{DateTime, Utc};
use sqlx::Row;

use super::{Db, StoreResult, parse_id, parse_ts, ts};
use crate::ids::PlayerId;

#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    pub id: PlayerId,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

impl Db {
    /// A new player whose bearer token hashes to `token_hash`.
    pub async fn create_player(&self, name: &str, token_hash: &str) -> StoreResult<Player> {
        let player = Player {
            id: PlayerId::new(),
            name: name.to_string(),
            created_at: Utc::now(),
        };
        sqlx::query("INSERT INTO players (id, name, created_at, token_hash) VALUES ($1, $2, $3, $4)")
            .bind(player.id.to_string())
            .bind(&player.name)
            .bind(ts(player.created_at))
            .bind(token_hash)
            .execute(&self.pool)
            .await?;
        Ok(player)
    }

    pub async fn player(&self, id: PlayerId) -> StoreResult<Option<Player>> {
        let row = sqlx::query("SELECT id, name, created_at FROM players WHERE id = $1")
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| player_from_row(&r)).transpose()
    }

    pub async fn player_by_token_hash(&self, token_hash: &str) -> StoreResult<Option<Player>> {
        let row = sqlx::query("SELECT id, name, created_at FROM players WHERE token_hash = $1")
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| player_from_row(&r)).transpose()
    }

    /// The oldest player with this exact name (used by `kibitz play --player`).
    pub async fn player_by_name(&self, name: &str) -> StoreResult<Option<Player>> {
        let row = sqlx::query("SELECT id, name, created_at FROM players WHERE name = $1 ORDER BY created_at LIMIT 1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| player_from_row(&r)).transpose()
    }
}

pub(super) fn player_from_row(r: &sqlx::any::AnyRow) -> StoreResult<Player> {
    Ok(Player {
        id: parse_id("players", r.get("id"))?,
        name: r.get("name"),
        created_at: parse_ts("players", r.get("created_at"))?,
    })
}
