//! Personas as Lichess BOT accounts. Each account follows its event stream
//! (`account.rs`): challenges are taken or declined by the policy
//! (`policy.rs`), and each game is one match of the club's runtime, driven
//! by a task of its own (`game.rs`): the opponent's moves, draw and
//! takeback offers and chat lines go in as the player's commands; what the
//! match says and plays comes out to Lichess (`outbox.rs`). Streams that
//! drop are opened again with backoff and the game resumed from Lichess's
//! `gameFull`; what was already posted or heard is kept in SQL, so nothing
//! is done twice. The wire format is `wire.rs`, the HTTP client `client.rs`.

mod account;
mod bot;
mod chat;
pub mod client;
mod ending;
mod game;
pub mod oauth;
mod outbox;
pub mod policy;
mod rows;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::runtime::Runtime;

pub use client::{LichessClient, LichessError, Token};
pub use rows::LichessGameRow;

#[derive(Debug, thiserror::Error)]
pub enum LichessStartError {
    #[error("[[lichess.accounts]] names persona {0}, which is not installed")]
    UnknownPersona(String),
    #[error("the Lichess token of persona {persona} is not set: export {var}")]
    NoToken { persona: String, var: String },
}

/// What every game of every account is told of the configuration.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub chat_line_chars: usize,
    pub reconnect_max: Duration,
}

/// The running accounts: dropping it leaves them running; `stop` ends them.
pub struct Lichess {
    bots: Vec<Arc<account::AccountDriver>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Lichess {
    /// Starts every configured account (none: nothing runs). A token or a
    /// persona missing is an error now; Lichess being out of reach is not
    /// (each account keeps trying, with backoff).
    pub fn start(runtime: &Runtime, config: &Config) -> Result<Lichess, LichessStartError> {
        let lichess = &config.lichess;
        if !lichess.play {
            return Ok(Lichess {
                bots: Vec::new(),
                tasks: Vec::new(),
            });
        }
        if config.cluster.node_url.is_some() && !lichess.accounts.is_empty() {
            tracing::warn!(
                "this node of the club plays the Lichess accounts: let no other node do so (lichess.play = false there)"
            );
        }
        let settings = Settings {
            chat_line_chars: lichess.chat_line_chars,
            reconnect_max: Duration::from_secs_f64(lichess.reconnect_max_secs),
        };
        let wait = Duration::from_secs_f64(lichess.rate_limit_wait_secs);
        let mut bots = Vec::new();
        for account in &lichess.accounts {
            let persona = runtime
                .persona(&account.persona)
                .ok_or_else(|| LichessStartError::UnknownPersona(account.persona.clone()))?;
            let token = account.token().ok_or_else(|| LichessStartError::NoToken {
                persona: account.persona.clone(),
                var: account.token_env.clone(),
            })?;
            let client = LichessClient::new(&lichess.url, Some(Token::new(token)), wait);
            let policy = policy::narrowed(&lichess.challenges, &persona.lichess);
            let bot = bot::Bot::new(runtime.clone(), client, persona, settings.clone());
            bots.push(Arc::new(account::AccountDriver::new(bot, policy)));
        }
        let tasks = bots.iter().map(|bot| tokio::spawn(bot.clone().run())).collect();
        Ok(Lichess { bots, tasks })
    }

    pub fn accounts(&self) -> usize {
        self.tasks.len()
    }

    /// Stops following Lichess (the games' matches stay as they are and
    /// are resumed from Lichess's state when the accounts start again).
    pub fn stop(&self) {
        for task in &self.tasks {
            task.abort();
        }
        for bot in &self.bots {
            bot.stop_games();
        }
    }
}

/// 1 s, 2 s, 4 s ... up to a most, back to 1 s once a stream works.
#[derive(Debug)]
pub(crate) struct Backoff {
    next: Duration,
    most: Duration,
}

impl Backoff {
    pub fn new(most: Duration) -> Backoff {
        Backoff {
            next: Duration::from_secs(1).min(most),
            most,
        }
    }

    pub fn reset(&mut self) {
        self.next = Duration::from_secs(1).min(self.most);
    }

    pub async fn wait(&mut self) {
        tokio::time::sleep(self.next).await;
        self.next = (self.next * 2).min(self.most);
    }
}
