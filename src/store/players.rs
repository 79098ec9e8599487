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

    /// The player a Lichess user is, made on first meeting: named and titled
    /// as Lichess shows them now (a renamed account keeps its player).
    pub async fn lichess_player(&self, lichess_id: &str, name: &str, title: Option<&str>) -> StoreResult<Player> {
        sqlx::query(
            "INSERT INTO players (id, name, created_at, lichess_id, lichess_title) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (lichess_id) DO UPDATE SET name = excluded.name, lichess_title = excluded.lichess_title",
        )
        .bind(PlayerId::new().to_string())
        .bind(name)
        .bind(ts(Utc::now()))
        .bind(lichess_id)
        .bind(title)
        .execute(&self.pool)
        .await?;
        let row = sqlx::query("SELECT id, name, created_at FROM players WHERE lichess_id = $1")
            .bind(lichess_id)
            .fetch_one(&self.pool)
            .await?;
        player_from_row(&row)
    }

    /// The player signed in as this Lichess user, if the persona ever met them.
    pub async fn player_by_lichess_id(&self, lichess_id: &str) -> StoreResult<Option<Player>> {
        let row = sqlx::query("SELECT id, name, created_at FROM players WHERE lichess_id = $1")
            .bind(lichess_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| player_from_row(&r)).transpose()
    }

    /// A new bearer token for a player (a sign-in): the one before stops working.
    pub async fn set_player_token(&self, player: PlayerId, token_hash: &str) -> StoreResult<()> {
        sqlx::query("UPDATE players SET token_hash = $1 WHERE id = $2")
            .bind(token_hash)
            .bind(player.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

fn player_from_row(r: &sqlx::any::AnyRow) -> StoreResult<Player> {
    Ok(Player {
        id: parse_id("players", r.get("id"))?,
        name: r.get("name"),
        created_at: parse_ts("players", r.get("created_at"))?,
    })
}
