//! Players: registering one (a name checked before anything is spent on
//! it, a bearer token shown once) and reading one.

use super::{Runtime, RuntimeError};
use crate::ids::PlayerId;
use crate::store::Player;

impl Runtime {
    /// A new player and its bearer token (shown once; only its hash is kept).
    pub async fn create_player(&self, name: &str) -> Result<(Player, String), RuntimeError> {
        let name = Runtime::check_name(name)?;
        let token = crate::tokens::new_token();
        let player = self.svc.db.create_player(name, &crate::tokens::hash(&token)).await?;
        Ok((player, token))
    }

    /// A player's name as it is kept (trimmed), or why it cannot be one;
    /// asked before anything is spent on a registration (an invite).
    pub fn check_name(name: &str) -> Result<&str, RuntimeError> {
        // The limit is on what was sent, as the API schema says; only the
        // emptiness test looks past surrounding spaces.
        let len = name.chars().count();
        // A name goes into prompts, PGN headers and log lines: one line of
        // text, as sent (a trailing newline too, as the schema says).
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Err(RuntimeError::ControlInName(c));
        }
        let name = name.trim();
        if name.is_empty() {
            return Err(RuntimeError::EmptyText);
        }
        if len > 64 {
            return Err(RuntimeError::TextTooLong { len, max: 64 });
        }
        Ok(name)
    }

    pub async fn player(&self, id: PlayerId) -> Result<Player, RuntimeError> {
        self.svc
            .db
            .player(id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("player {id}")))
    }
}
