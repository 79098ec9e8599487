//! One task per live match. It owns the game and serialises everything that
//! happens to it, so no two decisions for one match ever run at once.

mod abandon;
pub(super) mod after_game;
mod clock;
mod controls;
mod draws;
mod familiar;
mod fence;
mod handles;
mod history;
mod idle;
mod odds;
mod odds_book;
mod puzzle;
mod rated;
mod reflect;
mod seat;
mod site;
mod table;
mod takeback;
mod turns;
mod views;
mod voice;
mod words;

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, oneshot};

use super::error::RuntimeError;
use super::state::MatchState;
use super::timing::Phase;
use super::{stored_game, talk_mode};
use crate::chess::engine::Score;
use crate::chess::{GameEnd, PlayedMove};
use crate::events::{Emitter, MatchEvent, Message, Move, Side};
use crate::ids::MatchId;
use crate::llm::Session;
use crate::moves::{Driven, MoveBrain};
use crate::personas::Persona;
use crate::store::{DomainWrite, MatchStatus, Player};
use crate::triggers::{MatchHistory, TalkMode, Trigger};
pub use handles::MatchHandles;
use idle::IdleTimer;
use odds::KnownScores;
use odds_book::OddsBook;
pub use seat::{Seating, Sessions};
use table::Table;
use voice::Voice;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserCommand {
    Move(String),
    Chat(String),
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    /// Quiet, chatty or as usual, from now on with this persona.
    Talk(TalkMode),
    /// An engine-checked hint for the player's move.
    Hint,
    /// Why the persona played its last move.
    Explain,
    /// Take back the player's last move (and the persona's reply).
    Takeback,
    /// An answer (SAN or UCI) to the puzzle offered in this game.
    Puzzle(String),
}

/// What a command produced, and the match afterwards.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Outcome {
    pub events: Vec<MatchEvent>,
    pub state: MatchState,
}

/// A match opened for a player: a new one, or their unfinished one resumed.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Opened {
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The player's unfinished match against this persona, not a new one.
    pub resumed: bool,
}

pub type Reply = oneshot::Sender<Result<Outcome, RuntimeError>>;

pub enum Command {
    /// Start (fresh: fire before_match) or resume after a restart.
    Begin {
        fresh: bool,
        reply: Reply,
    },
    User {
        cmd: UserCommand,
        reply: Reply,
    },
    /// A user command whose events reach the player by the event stream (a
    /// WebSocket): answered once settled, with no state view built.
    Submit {
        cmd: UserCommand,
        reply: oneshot::Sender<Result<(), RuntimeError>>,
    },
    State {
        reply: Reply,
    },
    IdleFired {
        generation: u64,
    },
    /// The deeper evaluation of the position after ply `ply`.
    DeepScore {
        ply: usize,
        /// The position it scored: a move taken back since is not revised.
        fen: String,
        score: Score,
    },
    /// The language model's words for a trigger are composed.
    WordsReady,
    /// The persona's clock on the site the match is played on (`clock.rs`).
    Clock {
        left: std::time::Duration,
        increment: std::time::Duration,
    },
    /// End the match as abandoned unless the player was heard after `cutoff`.
    Abandon {
        cutoff: DateTime<Utc>,
        reply: oneshot::Sender<Result<bool, RuntimeError>>,
    },
    /// End the match as the site it is played on decided (`site.rs`).
    Conclude {
        end: GameEnd,
        reply: oneshot::Sender<Result<bool, RuntimeError>>,
    },
}

/// One match's task, made of parts that each own their state: the game at
/// the table (`table.rs`), the persona's talk (`voice.rs`), the odds of each
/// move (`odds_book.rs`) and the timers (`idle.rs`); the files beside them
/// are what the actor does with them.
pub struct MatchActor {
    /// What it reaches of the node: the store, memory, engines, the turn.
    node: MatchHandles,
    id: MatchId,
    player: Player,
    persona: Arc<Persona>,
    started_at: DateTime<Utc>,
    /// The player's UTC offset, if their client said.
    utc_offset_minutes: Option<i32>,
    table: Table,
    voice: Voice,
    odds: OddsBook,
    idle: IdleTimer,
    history: MatchHistory,
    /// The player's old mistake offered in this game, until answered.
    puzzle: puzzle::PuzzleBoard,
    /// The review of the finished game, running off the replies.
    after_game: Option<tokio::task::JoinHandle<()>>,
    emitter: Emitter,
    inbox: mpsc::WeakSender<Command>,
    /// after_match has run; the actor stops.
    done: bool,
    /// Chooses the persona's moves; one decision at a time (this actor).
    brain: Box<dyn MoveBrain>,
    /// The main agent's session on the language models (failover state,
    /// accounting), if any are configured.
    agent_llm: Option<Arc<Session>>,
    /// The subconscious's session, likewise.
    sub_llm: Option<Arc<Session>>,
    /// The session that retells the reflection in the persona's voice.
    reflection_llm: Option<Arc<Session>>,
    /// The persona's clock, when the match is played on a site with clocks.
    site_clock: Option<clock::SiteClock>,
}

type Events = Vec<MatchEvent>;

impl MatchActor {
    pub async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        while let Some(cmd) = rx.recv().await {
            if self.lease_lost() {
                cmd.refuse();
                break;
            }
            match cmd {
                Command::Begin { fresh, reply } => {
                    let result = self.begin(fresh).await;
                    let _ = reply.send(self.settled(result).await);
                }
                Command::User { cmd, reply } => {
                    let outcome = self.handle_settled(cmd).await.map(|events| Outcome {
                        events,
                        state: self.state(),
                    });
                    let _ = reply.send(outcome);
                }
                Command::Submit { cmd, reply } => {
                    let _ = reply.send(self.handle_settled(cmd).await.map(drop));
                }
                Command::State { reply } => {
                    let _ = reply.send(Ok(Outcome {
                        events: vec![],
                        state: self.state(),
                    }));
                }
                Command::IdleFired { generation } => {
                    let result = self.on_idle(generation).await;
                    if let Err(e) = self.settled(result).await {
                        tracing::warn!(match_id = %self.id, "idle_wait failed: {e}");
                    }
                }
                Command::DeepScore { ply, fen, score } => {
                    let result = self.revise_odds(ply, &fen, &score).await;
                    if let Err(e) = self.settled(result).await {
                        tracing::warn!(match_id = %self.id, "revising the odds failed: {e}");
                    }
                }
                Command::Clock { left, increment } => self.set_clock(left, increment),
                Command::WordsReady => {
                    let result = self.words_ready().await;
                    if let Err(e) = self.settled(result).await {
                        tracing::warn!(match_id = %self.id, "the persona's words failed: {e}");
                    }
                }
                Command::Abandon { cutoff, reply } => {
                    let result = self.abandon(cutoff).await;
                    let _ = reply.send(self.settled(result).await);
                }
                Command::Conclude { end, reply } => {
                    let result = self.conclude(end).await;
                    let _ = reply.send(self.settled(result).await);
                }
            }
            if self.done {
                break;
            }
        }
        self.idle.cancel().await;
        // The review after the game (puzzles, better moves, the retelling)
        // ends before the actor does: a clean stop waits for it. The inbox
        // closes first, so nobody's command waits on it meanwhile.
        drop(rx);
        if let Some(review) = self.after_game.take() {
            let _ = review.await;
        }
    }

    /// `result` once everything the command wrote is committed: nobody is
    /// answered before what they are told is safe in SQL.
    /// If a write failed, the match first goes back to what SQL holds, so
    /// no later command is answered from state that was never stored.
    async fn settled<T>(&mut self, result: Result<T, RuntimeError>) -> Result<T, RuntimeError> {
        let waited = Instant::now();
        let committed = self.emitter.settle().await;
        self.node.timings.record(Phase::Commit, waited.elapsed());
        if committed.is_err() || matches!(result, Err(RuntimeError::Store(_))) {
            self.reload().await;
        }
        let value = result?;
        committed?;
        Ok(value)
    }

    /// Back to the match as SQL holds it (the board, odds, mood, draw offer,
    /// event numbers), after a write of it failed. If SQL cannot be read
    /// either, the actor ends: the next command loads the match afresh.
    async fn reload(&mut self) {
        let db = self.node.db.clone();
        let (id, player) = (self.id, self.player.id);
        let stored = async {
            let (row, game, odds) = stored_game(&db, id).await?;
            let talk = talk_mode(&db, player, &row.persona_id).await?;
            let notes = db.match_notes(id).await?;
            Ok::<_, RuntimeError>(((row, game, odds), db.last_event_seq(id).await?, (talk, notes)))
        };
        match stored.await {
            Ok(((row, game, odds), last_seq, (talk, notes))) => {
                tracing::warn!(match_id = %self.id, "a write failed: the match goes on from what was stored");
                let draw_offer = row.draw_offer.as_deref().and_then(Side::parse);
                self.table.restore(game, draw_offer, notes);
                self.odds = OddsBook::new(odds);
                self.voice.restore(row.emotion, talk);
                self.emitter.rewind(last_seq);
                self.done = row.status == MatchStatus::Finished;
                db.resume_writes(self.id);
                self.idle.cancel().await;
                self.arm_idle().await;
            }
            Err(e) => {
                tracing::warn!(match_id = %self.id, "a write failed and the match cannot be read back ({e}): it reloads on its next command");
                db.resume_writes(self.id);
                self.done = true;
            }
        }
    }

    async fn begin(&mut self, fresh: bool) -> Result<Outcome, RuntimeError> {
        let mut events = Vec::new();
        if fresh {
            let offer = self.due_puzzle().await;
            let mut greeting = Trigger::new(crate::triggers::TriggerKind::BeforeMatch);
            greeting.input = offer.as_ref().map(puzzle::offered);
            self.fire(greeting, None, &mut events).await?;
            if let Some(p) = offer {
                self.offer_puzzle(p, &mut events).await?;
            }
        }
        if !self.finish_if_over(&mut events).await? {
            self.agent_move(None, &mut events).await?;
            self.arm_idle().await;
        }
        Ok(Outcome {
            events,
            state: self.state(),
        })
    }

    /// A user's command, answered once settled; a played move's whole time
    /// is timed (a refused one costs next to nothing and would hide it).
    async fn handle_settled(&mut self, cmd: UserCommand) -> Result<Events, RuntimeError> {
        let (started, is_move) = (Instant::now(), matches!(cmd, UserCommand::Move(_)));
        let result = self.handle(cmd).await;
        let result = self.settled(result).await;
        if is_move && result.is_ok() {
            self.node.timings.record(Phase::UserMove, started.elapsed());
        }
        result
    }

    async fn handle(&mut self, cmd: UserCommand) -> Result<Events, RuntimeError> {
        if self.table.game().end().is_some() {
            return Err(RuntimeError::GameOver);
        }
        self.idle.heard();
        let mut events = Vec::new();
        match cmd {
            UserCommand::Move(text) => self.user_move(&text, &mut events).await?,
            UserCommand::Chat(text) => self.chat(&text, &mut events).await?,
            UserCommand::Resign => {
                self.finish(
                    GameEnd::Resignation {
                        winner: !self.table.user(),
                    },
                    &mut events,
                )
                .await?
            }
            UserCommand::OfferDraw => self.offer_draw(&mut events).await?,
            UserCommand::AcceptDraw => {
                self.pending_persona_offer()?;
                self.finish(GameEnd::DrawAgreed, &mut events).await?;
            }
            UserCommand::DeclineDraw => {
                self.pending_persona_offer()?;
                self.set_draw_offer(None, &mut events).await?;
            }
            UserCommand::Talk(mode) => self.set_talk(mode, &mut events).await?,
            UserCommand::Hint => self.hint(&mut events).await?,
            UserCommand::Puzzle(answer) => self.answer_puzzle(&answer, &mut events).await?,
            UserCommand::Explain => self.explain(&mut events).await?,
            UserCommand::Takeback => self.takeback(&mut events).await?,
        }
        Ok(events)
    }

    async fn user_move(&mut self, text: &str, events: &mut Events) -> Result<(), RuntimeError> {
        if self.table.game().turn() != self.table.user() {
            return Err(RuntimeError::NotYourTurn);
        }
        let m = self.table.game().parse(text)?;
        let thought = self.table.clock_move();
        let played = self.table.play(m);
        self.table.player_thought(thought);
        // An engine's reply is searched now: the search scores the user's
        // move too, so its odds cost no search of their own.
        let reply = self.decide_reply_at_once().await;
        let known = KnownScores {
            before: None,
            after: match &reply {
                Some(Driven::Move { report, .. }) => report.root_score.clone(),
                _ => None,
            },
        };
        self.emit_move(&played, Side::User, known, thought, events).await?;
        self.idle.reset();
        self.idle.cancel().await;
        if self.table.draw_offer().is_some() {
            // Playing on answers a pending offer with no.
            self.set_draw_offer(None, events).await?;
        }
        if self.finish_if_over(events).await? {
            return Ok(());
        }
        self.fire(Trigger::new(crate::triggers::TriggerKind::OnUserMove), None, events)
            .await?;
        self.agent_move(reply, events).await
    }

    async fn chat(&mut self, text: &str, events: &mut Events) -> Result<(), RuntimeError> {
        // Measured as sent (the schema's maxLength), judged empty once trimmed.
        let (len, max) = (text.chars().count(), self.node.settings.max_chat_chars);
        let text = text.trim();
        if text.is_empty() {
            return Err(RuntimeError::EmptyText);
        }
        // The HTTP extractors refuse NUL already; a WebSocket frame or the
        // terminal reaches the match without them.
        if text.contains('\0') {
            return Err(RuntimeError::NulInText);
        }
        if len > max {
            return Err(RuntimeError::TextTooLong { len, max });
        }
        let data = Message {
            sender: Side::User,
            content: text.into(),
            tone: None,
        };
        let write = DomainWrite::Message {
            sender: "user".into(),
            content: text.into(),
            tone: None,
        };
        let said = self.emitter.emit(data, write).await?;
        let trigger = Trigger::chat(text, said.seq);
        events.push(said);
        self.idle.reset();
        self.arm_idle().await;
        self.fire(trigger, None, events).await
    }

    /// Persists and pushes the move just played, with its odds (from what a
    /// search already said about it, else evaluated).
    async fn emit_move(
        &mut self,
        played: &PlayedMove,
        side: Side,
        known: KnownScores,
        took: chrono::Duration,
        events: &mut Events,
    ) -> Result<(), RuntimeError> {
        let ply = self.table.game().moves().len();
        let odds = self.odds_after_last_move(known).await;
        self.odds.record(ply, odds);
        self.evaluate_deeper_later(ply, &played.fen_after);
        let data = Move {
            ply,
            uci: played.uci.clone(),
            san: played.san.clone(),
            side,
            fen: played.fen_after.clone(),
            odds,
        };
        let write = DomainWrite::Move {
            ply,
            uci: played.uci.clone(),
            san: played.san.clone(),
            side: side.as_str().into(),
            fen_after: played.fen_after.clone(),
            odds,
            think_ms: Some(took.num_milliseconds()),
        };
        events.push(self.emitter.emit(data, write).await?);
        Ok(())
    }
}
