//! One persona's BOT account on Lichess: its event stream (challenges to
//! take or decline, games starting and finishing) and the task of each game
//! it plays.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;

use super::bot::Bot;
use super::client::LichessError;
use super::wire::{AccountEvent, Challenge};
use super::{Backoff, game, policy};
use crate::config::ChallengePolicy;

pub(crate) struct AccountDriver {
    bot: Arc<Bot>,
    policy: ChallengePolicy,
    games: Mutex<HashMap<String, tokio::task::JoinHandle<()>>>,
    /// Challenges accepted whose game has not started yet (a game has its
    /// challenge's id): they count against `max_games` too.
    accepted: Mutex<std::collections::HashSet<String>>,
}

impl AccountDriver {
    pub fn new(bot: Bot, policy: ChallengePolicy) -> AccountDriver {
        AccountDriver {
            bot: Arc::new(bot),
            policy,
            games: Mutex::default(),
            accepted: Mutex::default(),
        }
    }

    /// Follows the account's events for as long as the server runs.
    pub async fn run(self: Arc<Self>) {
        let mut backoff = Backoff::new(self.bot.settings.reconnect_max);
        loop {
            match self.follow(&mut backoff).await {
                Ok(()) => {
                    tracing::info!(persona = %self.bot.persona.id, "the Lichess event stream closed; opening it again")
                }
                Err(e) => tracing::warn!(persona = %self.bot.persona.id, "the Lichess event stream failed: {e}"),
            }
            backoff.wait().await;
        }
    }

    async fn follow(self: &Arc<Self>, backoff: &mut Backoff) -> Result<(), LichessError> {
        if self.bot.me().is_empty() {
            let account = self.bot.client.account().await?;
            tracing::info!(persona = %self.bot.persona.id, account = %account.username, "playing on Lichess");
            self.bot.set_me(account);
            self.take_up_unfinished().await;
        }
        let events = self.bot.client.stream::<AccountEvent>("/api/stream/event").await?;
        backoff.reset();
        let mut events = std::pin::pin!(events);
        while let Some(event) = events.next().await {
            match event? {
                AccountEvent::Challenge { challenge } => self.answer(&challenge).await?,
                AccountEvent::GameStart { game } | AccountEvent::GameFinish { game } => self.drive(&game.game_id),
                AccountEvent::ChallengeCanceled { challenge } | AccountEvent::ChallengeDeclined { challenge } => {
                    tracing::debug!(challenge = %challenge.id, "challenge withdrawn");
                }
            }
        }
        Ok(())
    }

    /// Takes or declines a challenge made to the account.
    async fn answer(&self, challenge: &Challenge) -> Result<(), LichessError> {
        if challenge.direction.as_deref() == Some("out") || challenge.challenger.id == self.bot.me() {
            return Ok(());
        }
        let verdict = policy::judge(&self.policy, challenge, self.playing());
        let answered = match verdict {
            Ok(()) => {
                self.accepted
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(challenge.id.clone());
                self.bot.client.accept(&challenge.id).await
            }
            Err(reason) => self.bot.client.decline(&challenge.id, reason).await,
        };
        tracing::info!(persona = %self.bot.persona.id, challenge = %challenge.id, from = %challenge.challenger.name,
            "challenge {}", verdict.map_or_else(|r| format!("declined ({})", r.as_str()), |()| "accepted".into()));
        match answered {
            // Withdrawn meanwhile, or refused: logged, and the stream goes on
            // (Lichess sends open challenges again on every connect).
            Err(e @ LichessError::Status { .. }) => {
                tracing::info!(persona = %self.bot.persona.id, challenge = %challenge.id, "the answer was refused: {e}");
                Ok(())
            }
            other => other,
        }
    }

    /// The games whose match was left unfinished by the last run: Lichess's
    /// event stream names only games still going, and one may have ended
    /// while nobody followed it.
    async fn take_up_unfinished(self: &Arc<Self>) {
        match self
            .bot
            .runtime
            .shared()
            .db
            .unfinished_lichess_games(self.bot.me())
            .await
        {
            Ok(games) => games.iter().for_each(|game| self.drive(game)),
            Err(e) => {
                tracing::warn!(persona = %self.bot.persona.id, "the unfinished Lichess games could not be read: {e}")
            }
        }
    }

    /// The games running now, and those accepted and about to start.
    fn playing(&self) -> usize {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.retain(|_, task| !task.is_finished());
        let accepted = self.accepted.lock().unwrap_or_else(|e| e.into_inner());
        games.len() + accepted.iter().filter(|id| !games.contains_key(*id)).count()
    }

    /// Starts following a game unless it is followed already. A game that
    /// finished while nobody followed it is followed too: its match ends
    /// as Lichess says.
    fn drive(self: &Arc<Self>, game_id: &str) {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if games.get(game_id).is_some_and(|task| !task.is_finished()) {
            return;
        }
        let task = tokio::spawn(game::GameDriver::new(self.bot.clone(), game_id.to_string()).run());
        games.insert(game_id.to_string(), task);
        self.accepted.lock().unwrap_or_else(|e| e.into_inner()).remove(game_id);
    }

    /// Stops every game's task (their matches are resumed later from Lichess).
    pub fn stop_games(&self) {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        for task in games.values() {
            task.abort();
        }
    }
}
