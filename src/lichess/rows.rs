//! The games personas play on Lichess, as the store keeps them: each with
//! its match and how far the driver has gone in it (what it posted, what it
//! heard), so a reconnect or a restart repeats nothing. (Opponents are
//! players keyed by their Lichess id: `store/players.rs`.)

use chrono::Utc;
use sqlx::Row;

use crate::ids::{MatchId, PlayerId};
use crate::store::{Db, StoreResult, parse_id, ts};

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
    pub async fn link_lichess_game(&self, game_id: &str, match_id: MatchId, account: &str) -> StoreResult<()> {
        sqlx::query("INSERT INTO lichess_games (game_id, match_id, account, created_at) VALUES ($1, $2, $3, $4)")
            .bind(game_id)
            .bind(match_id.to_string())
            .bind(account)
            .bind(ts(Utc::now()))
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn lichess_game(&self, game_id: &str) -> StoreResult<Option<LichessGameRow>> {
        let row = sqlx::query(
            "SELECT game_id, match_id, account, posted_seq, heard_lines FROM lichess_games WHERE game_id = $1",
        )
        .bind(game_id)
        .fetch_optional(self.pool())
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
        .fetch_all(self.pool())
        .await?;
        Ok(rows.iter().map(|r| r.get("game_id")).collect())
    }

    /// The Lichess game a match was played as, if it was.
    pub async fn lichess_game_of_match(&self, match_id: MatchId) -> StoreResult<Option<String>> {
        let row = sqlx::query("SELECT game_id FROM lichess_games WHERE match_id = $1")
            .bind(match_id.to_string())
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| r.get("game_id")))
    }

    /// A player's matches played on Lichess: match -> game id.
    pub async fn lichess_games_of_player(&self, player: PlayerId) -> StoreResult<Vec<(MatchId, String)>> {
        let rows = sqlx::query(
            "SELECT g.match_id, g.game_id FROM lichess_games g JOIN matches m ON m.id = g.match_id WHERE m.player_id = $1",
        )
        .bind(player.to_string())
        .fetch_all(self.pool())
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
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// `lines` of the opponent's chat lines are heard; never moves back.
    pub async fn lichess_heard(&self, game_id: &str, lines: i64) -> StoreResult<()> {
        sqlx::query("UPDATE lichess_games SET heard_lines = $1 WHERE game_id = $2 AND heard_lines < $1")
            .bind(lines)
            .bind(game_id)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
