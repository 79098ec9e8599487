//! One Lichess game, played as one match: the game's stream read, the
//! opponent's moves, offers and chat lines given to the match as the
//! player's commands, and the match's own moves and words carried back
//! (`outbox.rs`) whenever it says something. A dropped stream is opened
//! again and the game taken up from Lichess's `gameFull`.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::broadcast;

use super::bot::Bot;
use super::client::LichessError;
use super::rows::LichessGameRow;
use super::wire::{GameEvent, GameFull, GameState, Room};
use super::{Backoff, ending};
use crate::chess::Game;
use crate::events::Pushed;
use crate::ids::MatchId;
use crate::runtime::{ColorChoice, MatchRequest, RuntimeError, UserCommand};
use crate::store::{MatchStatus, StoreError};

#[derive(Debug, thiserror::Error)]
pub(super) enum DriveError {
    #[error(transparent)]
    Lichess(#[from] LichessError),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the game stream did not begin with gameFull")]
    NoGameFull,
    #[error("the game stream closed")]
    Dropped,
    #[error("Lichess's moves do not replay: {0}")]
    Moves(String),
}

/// Who is who in the game, once its match is known.
impl DriveError {
    /// An error trying again cannot mend: the game's match cannot be made
    /// (too many matches, a position kibitz cannot set up), or Lichess has
    /// no such game.
    fn is_final(&self) -> bool {
        match self {
            DriveError::Runtime(e) => matches!(
                e,
                RuntimeError::TooManyMatches { .. } | RuntimeError::InvalidFen(_) | RuntimeError::UnknownPersona(_)
            ),
            DriveError::Lichess(LichessError::Status { status, .. }) => *status == 404,
            _ => false,
        }
    }
}

pub(super) struct Seated {
    pub row: LichessGameRow,
    /// The opponent's name as Lichess shows it (their chat lines bear it).
    pub opponent: String,
    pub opponent_white: bool,
    pub initial_fen: Option<String>,
}

pub(crate) struct GameDriver {
    pub(super) bot: Arc<Bot>,
    pub(super) game_id: String,
    pub(super) seated: Option<Seated>,
    /// The moves Lichess has (standard UCI), as last told or since posted.
    pub(super) on_lichess: Vec<String>,
    pub(super) lichess_over: bool,
    /// The ply at which the opponent's draw or takeback offer was last passed on.
    draw_passed: Option<usize>,
    takeback_passed: Option<usize>,
    /// The opponent left: when the win may be claimed.
    claim_at: Option<tokio::time::Instant>,
    /// A takeback was passed on: Lichess's next state may have fewer moves.
    taking_back: bool,
}

impl GameDriver {
    pub fn new(bot: Arc<Bot>, game_id: String) -> GameDriver {
        GameDriver {
            bot,
            game_id,
            seated: None,
            on_lichess: Vec::new(),
            lichess_over: false,
            draw_passed: None,
            takeback_passed: None,
            claim_at: None,
            taking_back: false,
        }
    }

    pub async fn run(mut self) {
        let mut backoff = Backoff::new(self.bot.settings.reconnect_max);
        loop {
            match self.follow(&mut backoff).await {
                Ok(()) => return,
                Err(e) if e.is_final() => {
                    tracing::warn!(game = %self.game_id, "the game cannot be played: {e}; aborting it");
                    if let Err(e) = self.bot.client.abort(&self.game_id).await {
                        tracing::info!(game = %self.game_id, "the game could not be aborted: {e}");
                    }
                    return;
                }
                Err(e) => tracing::warn!(game = %self.game_id, "following the game failed: {e}"),
            }
            backoff.wait().await;
        }
    }

    /// Follows the game until it is over and all is said; an error means
    /// the stream is to be opened again.
    async fn follow(&mut self, backoff: &mut Backoff) -> Result<(), DriveError> {
        let path = format!("/api/bot/game/stream/{}", self.game_id);
        let stream = self.bot.client.stream::<GameEvent>(&path).await?;
        let mut stream = std::pin::pin!(stream);
        let full = match stream.next().await {
            Some(Ok(GameEvent::GameFull(full))) => full,
            Some(Err(e)) => return Err(e.into()),
            _ => return Err(DriveError::NoGameFull),
        };
        backoff.reset();
        let Some(match_id) = self.seat(&full).await? else {
            return Ok(());
        };
        let mut pushed = Some(self.bot.runtime.subscribe(match_id).await);
        // What Lichess has is known before anything is posted.
        self.on_lichess = self.standard(&full.state.moves())?;
        self.catch_up_chat().await?;
        self.on_state(&full.state).await?;
        while !self.done().await? {
            tokio::select! {
                event = stream.next() => match event {
                    Some(Ok(event)) => self.on_event(event).await?,
                    Some(Err(e)) => return Err(e.into()),
                    None => return Err(DriveError::Dropped),
                },
                got = next_pushed(&mut pushed) => {
                    if got {
                        self.post_outbox().await?;
                    }
                }
                () = until(self.claim_at) => {
                    self.claim_at = None;
                    tracing::info!(game = %self.game_id, "the opponent left: the win is claimed");
                    self.bot.client.claim_victory(&self.game_id).await?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn match_id(&self) -> Option<MatchId> {
        self.seated.as_ref().map(|s| s.row.match_id)
    }

    /// Over on Lichess and in the match, and all of it posted.
    async fn done(&mut self) -> Result<bool, DriveError> {
        if !self.lichess_over {
            return Ok(false);
        }
        self.post_outbox().await?;
        Ok(true)
    }

    /// The game's match: the one it was linked to, or a new one with the
    /// opponent as the player (none for a game over before it was seen, or
    /// against Lichess's own AI).
    async fn seat(&mut self, full: &GameFull) -> Result<Option<MatchId>, DriveError> {
        let me = self.bot.me().to_string();
        let opponent_white = full.white.id.as_deref() != Some(me.as_str());
        let opponent = if opponent_white { &full.white } else { &full.black };
        let name = opponent
            .name
            .clone()
            .or_else(|| opponent.id.clone())
            .unwrap_or_default();
        let initial_fen = Some(full.initial_fen.clone()).filter(|f| f != "startpos");
        let db = self.bot.runtime.shared().db;
        if let Some(row) = db.lichess_game(&self.game_id).await? {
            let match_id = row.match_id;
            self.seated = Some(Seated {
                row,
                opponent: name,
                opponent_white,
                initial_fen,
            });
            return Ok(Some(match_id));
        }
        if full.state.status.is_over() {
            return Ok(None);
        }
        let Some(lichess_id) = opponent.id.as_deref() else {
            tracing::info!(game = %self.game_id, "not a game against a person: aborted");
            self.bot.client.abort(&self.game_id).await?;
            return Ok(None);
        };
        let player = db.lichess_player(lichess_id, &name, opponent.title.as_deref()).await?;
        let request = MatchRequest {
            color: if opponent_white {
                ColorChoice::White
            } else {
                ColorChoice::Black
            },
            fen: initial_fen.as_deref(),
            uncapped: true,
            ..MatchRequest::new(&self.bot.persona.id)
        };
        let state = self.bot.runtime.create_match(player.id, request).await?.state;
        db.link_lichess_game(&self.game_id, state.id, &me).await?;
        tracing::info!(game = %self.game_id, match_id = %state.id, opponent = %name, "a Lichess game begins");
        let row = db.lichess_game(&self.game_id).await?.ok_or(DriveError::NoGameFull)?;
        self.seated = Some(Seated {
            row,
            opponent: name,
            opponent_white,
            initial_fen,
        });
        let hello = format!(
            "{} (a kibitz persona) is playing. Enjoy the game!",
            self.bot.persona.name
        );
        self.bot.client.chat(&self.game_id, Room::Spectator, &hello).await?;
        Ok(Some(state.id))
    }

    async fn on_event(&mut self, event: GameEvent) -> Result<(), DriveError> {
        match event {
            GameEvent::GameState(state) => self.on_state(&state).await,
            GameEvent::GameFull(full) => self.on_state(&full.state).await,
            // Heard from the game's chat as Lichess keeps it, past those
            // heard already: a line the catch-up read is not heard again.
            GameEvent::ChatLine(line) => match line.room == Room::Player && self.is_opponent(&line.username) {
                true => self.catch_up_chat().await,
                false => Ok(()),
            },
            GameEvent::OpponentGone {
                gone,
                claim_win_in_seconds,
            } => {
                // Gone for good: the win is claimed when Lichess allows it.
                self.claim_at = match (gone, claim_win_in_seconds) {
                    (true, Some(secs)) => Some(tokio::time::Instant::now() + Duration::from_secs(secs.into())),
                    _ => None,
                };
                tracing::info!(game = %self.game_id, gone, "the opponent left or came back");
                Ok(())
            }
        }
    }

    fn is_opponent(&self, username: &str) -> bool {
        let seated = self.seated.as_ref();
        seated.is_some_and(|s| s.opponent.eq_ignore_ascii_case(username))
            && !username.eq_ignore_ascii_case(self.bot.me())
    }

    /// Lichess's state of the game: the opponent's new moves played in the
    /// match, their offers passed on, the ending recorded.
    async fn on_state(&mut self, state: &GameState) -> Result<(), DriveError> {
        let moves = self.standard(&state.moves())?;
        // A state sent before our last move reached Lichess: already passed.
        let stale = moves.len() < self.on_lichess.len() && self.on_lichess.starts_with(&moves) && !self.taking_back;
        if stale && !state.status.is_over() {
            return Ok(());
        }
        self.taking_back = false;
        self.on_lichess = moves;
        self.tell_clock(state).await;
        self.play_new_moves().await?;
        if state.status.is_over() {
            if let (Some(end), Some(id)) = (ending::game_end(state.status, state.winner), self.match_id()) {
                self.bot.runtime.conclude(id, end).await?;
            }
            self.lichess_over = true;
            return Ok(());
        }
        let (draw, takeback) = match self.seated.as_ref().is_some_and(|s| s.opponent_white) {
            true => (state.wdraw, state.wtakeback),
            false => (state.bdraw, state.btakeback),
        };
        // An offer is passed on once while it stands (a takeback may bring
        // the same ply back, so a lapsed offer clears the mark).
        let ply = self.on_lichess.len();
        if !draw {
            self.draw_passed = None;
        } else if self.draw_passed != Some(ply) {
            self.draw_passed = Some(ply);
            self.command(UserCommand::OfferDraw).await;
        }
        if !takeback {
            self.takeback_passed = None;
        } else if self.takeback_passed != Some(ply) {
            self.takeback_passed = Some(ply);
            self.taking_back = true;
            self.command(UserCommand::Takeback).await;
        }
        self.post_outbox().await
    }

    /// The persona's time left, so its next move keeps within it.
    async fn tell_clock(&self, state: &GameState) {
        let (Some(id), Some(seated)) = (self.match_id(), self.seated.as_ref()) else {
            return;
        };
        let (left, increment) = match seated.opponent_white {
            true => (state.btime, state.binc),
            false => (state.wtime, state.winc),
        };
        let ms = Duration::from_millis;
        self.bot.runtime.set_clock(id, ms(left), ms(increment)).await;
    }

    /// Plays in the match the opponent's moves Lichess has and it has not.
    async fn play_new_moves(&mut self) -> Result<(), DriveError> {
        let Some(id) = self.match_id() else { return Ok(()) };
        loop {
            let state = self.bot.runtime.state(id).await?;
            let played = state.moves.len();
            if state.status == MatchStatus::Finished || self.on_lichess.len() <= played {
                return Ok(());
            }
            if !state.your_turn {
                tracing::warn!(game = %self.game_id, played, on_lichess = self.on_lichess.len(),
                    "Lichess has a move of the persona's that the match has not");
                return Ok(());
            }
            let uci = self.on_lichess[played].clone();
            if let Err(e) = self.bot.runtime.command(id, UserCommand::Move(uci)).await {
                tracing::warn!(game = %self.game_id, "the opponent's move was refused by the match: {e}");
                return Ok(());
            }
        }
    }

    /// Lichess's moves (UCI, a castling maybe written king-takes-rook) as
    /// the match writes them.
    fn standard(&self, moves: &[&str]) -> Result<Vec<String>, DriveError> {
        let fen = self.seated.as_ref().and_then(|s| s.initial_fen.clone());
        let mut game = Game::new(fen.as_deref()).map_err(|e| DriveError::Moves(e.to_string()))?;
        moves
            .iter()
            .map(|uci| {
                let m = game.parse(uci).map_err(|e| DriveError::Moves(format!("{uci}: {e}")))?;
                Ok(game.play(m).uci)
            })
            .collect()
    }

    /// The opponent's chat lines said while nobody listened (Lichess keeps
    /// the game's chat), heard now in order; those heard before are not.
    async fn catch_up_chat(&mut self) -> Result<(), DriveError> {
        let Some(heard) = self.seated.as_ref().map(|s| s.row.heard_lines) else {
            return Ok(());
        };
        let chat = self.bot.client.read_chat(&self.game_id).await?;
        let theirs: Vec<String> = chat
            .into_iter()
            .filter(|line| self.is_opponent(&line.user))
            .map(|line| line.text)
            .collect();
        for text in theirs.iter().skip(usize::try_from(heard).unwrap_or(0)) {
            self.hear(text).await?;
        }
        Ok(())
    }

    /// One of the opponent's chat lines, counted as heard first (a crash
    /// then loses it rather than hearing it twice), then said to the match.
    async fn hear(&mut self, text: &str) -> Result<(), DriveError> {
        let Some(seated) = self.seated.as_mut() else {
            return Ok(());
        };
        seated.row.heard_lines += 1;
        let db = self.bot.runtime.shared().db;
        db.lichess_heard(&self.game_id, seated.row.heard_lines).await?;
        self.command(UserCommand::Chat(text.to_string())).await;
        self.post_outbox().await
    }

    /// A command to the match whose refusal is only logged (a chat line too
    /// long, a takeback the match cannot grant): the game goes on.
    async fn command(&self, cmd: UserCommand) {
        let Some(id) = self.match_id() else { return };
        if let Err(e) = self.bot.runtime.command(id, cmd).await {
            tracing::info!(game = %self.game_id, "the match refused a command from Lichess: {e}");
        }
    }
}

/// Waits until `at`, or forever when there is nothing to wait for.
async fn until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Whether the match said something (true) or its stream has nothing more
/// to say: a closed stream (the match's actor stopped) waits forever.
async fn next_pushed(pushed: &mut Option<broadcast::Receiver<Pushed>>) -> bool {
    let Some(rx) = pushed else {
        return std::future::pending().await;
    };
    match rx.recv().await {
        Ok(Pushed::Stored(_)) | Err(broadcast::error::RecvError::Lagged(_)) => true,
        Ok(Pushed::Passing { .. }) => false,
        Err(broadcast::error::RecvError::Closed) => {
            *pushed = None;
            false
        }
    }
}
