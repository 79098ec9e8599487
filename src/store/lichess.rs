//! Lichess's rows: opponents keyed by their Lichess id, and each game a
//! persona plays there with how far the driver has gone in it (what it
//! posted, what it heard), so a reconnect or a restart repeats nothing.

use chrono::Utc;
use sqlx::Row;

use super::players::player_from_row;
use super::{Db, Player, StoreResult, parse_id, ts};
use crate::ids::{MatchId, PlayerId};

/// A Lichess game and the match it is played as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LichessGameRow {
    pub game_id: String,
    pub match_id: MatchId,
    /// The persona's BOT account (its Lichess id).
    pub account: String,
    /// The last of the match's events already carried to the game.
    pub posted_seq: i64,
    /// How many of the opponent's chat lines were heard.
    pub heard_lines: i64,
}

impl Db {
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

    pub async fn link_lichess_game(&self, game_id: &str, match_id: MatchId, account: &str) -> StoreResult<()> {
        sqlx::query("INSERT INTO lichess_games (game_id, match_id, account, created_at) VALUES ($1, $2, $3, $4)")
            .bind(game_id)
            .bind(match_id.to_string())
            .bind(account)
            .bind(ts(Utc::now()))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn lichess_game(&self, game_id: &str) -> StoreResult<Option<LichessGameRow>> {
        let row = sqlx::query(
            "SELECT game_id, match_id, account, posted_seq, heard_lines FROM lichess_games WHERE game_id = $1",
        )
        .bind(game_id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok(LichessGameRow {
                game_id: r.get("game_id"),
                match_id: parse_id("lichess_games", r.get("match_id"))?,
                account: r.get("account"),
                posted_seq: r.get("posted_seq"),
                heard_lines: r.get("heard_lines"),
            })
        })
        .transpose()
    }

    /// The games of this account whose match is not finished: after a
    /// restart each is followed again, even one Lichess ended meanwhile.
    pub async fn unfinished_lichess_games(&self, account: &str) -> StoreResult<Vec<String>> {
        let rows = sqlx::query(
            "SELECT g.game_id FROM lichess_games g JOIN matches m ON m.id = g.match_id
             WHERE g.account = $1 AND m.status = 'active' ORDER BY g.created_at",
        )
        .bind(account)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(|r| r.get("game_id")).collect())
    }

    /// The Lichess game a match was played as, if it was.
    pub async fn lichess_game_of_match(&self, match_id: MatchId) -> StoreResult<Option<String>> {
        let row = sqlx::query("SELECT game_id FROM lichess_games WHERE match_id = $1")
            .bind(match_id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.get("game_id")))
    }

    /// A player's matches played on Lichess: match -> game id.
    pub async fn lichess_games_of_player(&self, player: PlayerId) -> StoreResult<Vec<(MatchId, String)>> {
        let rows = sqlx::query(
            "SELECT g.match_id, g.game_id FROM lichess_games g JOIN matches m ON m.id = g.match_id WHERE m.player_id = $1",
        )
        .bind(player.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((parse_id("lichess_games", r.get("match_id"))?, r.get("game_id"))))
            .collect()
    }

    /// Events up to `seq` are on the game; never moves back.
    pub async fn lichess_posted(&self, game_id: &str, seq: i64) -> StoreResult<()> {
        sqlx::query("UPDATE lichess_games SET posted_seq = $1 WHERE game_id = $2 AND posted_seq < $1")
            .bind(seq)
            .bind(game_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// `lines` of the opponent's chat lines are heard; never moves back.
    pub async fn lichess_heard(&self, game_id: &str, lines: i64) -> StoreResult<()> {
        sqlx::query("UPDATE lichess_games SET heard_lines = $1 WHERE game_id = $2 AND heard_lines < $1")
            .bind(lines)
            .bind(game_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
