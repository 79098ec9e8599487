//! The persona's side of the game: its moves, draw offers, idle nudges, and
//! the end of the match.

use std::time::Instant;

use tracing::Instrument;

use super::MatchActor;
use super::odds::KnownScores;
use crate::chess::GameEnd;
use crate::events::{GameOver, MatchEvent, Side};
use crate::memory::Scope;
use crate::moves::Driven;
use crate::runtime::error::RuntimeError;
use crate::runtime::timing::Phase;
use crate::store::DomainWrite;
use crate::triggers::{MoveFact, Trigger, TriggerKind};

/// Twenty moves each without a capture or pawn move, material level: the
/// persona proposes a draw.
const DRAW_OFFER_HALFMOVES: u32 = 40;

type Events = Vec<MatchEvent>;

impl MatchActor {
    /// The persona's reply, decided before the user's move is announced, when
    /// the brain is an engine (a search, not a conversation) and the game goes on.
    pub(super) async fn decide_reply_at_once(&mut self) -> Option<Driven> {
        if self.table.game().end().is_some()
            || self.table.game().turn() == self.table.user()
            || !self.brain.answers_at_once()
        {
            return None;
        }
        Some(self.decide().await)
    }

    /// The persona's move brain's choice in this position, timed.
    async fn decide(&mut self) -> Driven {
        let started = Instant::now();
        let driven = self.decide_within_clock().await;
        self.node.timings.record(Phase::PersonaMove, started.elapsed());
        driven
    }

    /// Plays the persona's move if it is its turn: the brain's choice (or
    /// `decided`, made earlier in this position), then before_agent_move
    /// (which knows the move), then the move itself. A brain that cannot
    /// produce a legal move in five attempts resigns.
    pub(super) async fn agent_move(
        &mut self,
        decided: Option<Driven>,
        events: &mut Events,
    ) -> Result<(), RuntimeError> {
        if self.table.game().end().is_some() || self.table.game().turn() == self.table.user() {
            return Ok(());
        }
        let driven = match decided {
            Some(driven) => driven,
            None => self.decide().await,
        };
        let (m, known) = match driven {
            Driven::Move { mv, report, .. } => {
                if report.fallback || report.illegal > 0 {
                    tracing::info!(match_id = %self.id, illegal = report.illegal, fallback = report.fallback,
                        "the persona's move brain needed help");
                }
                let known = KnownScores {
                    before: report.root_score,
                    after: report.score_after,
                };
                (mv, known)
            }
            Driven::Resign { reason, .. } => {
                tracing::warn!(match_id = %self.id, "the persona resigns: {reason}");
                let end = GameEnd::Resignation {
                    winner: self.table.user(),
                };
                return self.finish(end, events).await;
            }
        };
        let mut preview = self.table.game().clone();
        let fact = MoveFact::new(self.table.game().moves().len() + 1, &preview.play(m), self.table.user())
            .played_in(self.table.game().fen());
        self.fire(Trigger::new(TriggerKind::BeforeAgentMove), Some(fact), events)
            .await?;
        let took = self.table.clock_move();
        let played = self.table.play(m);
        self.emit_move(&played, Side::Persona, known, took, events).await?;
        if self.finish_if_over(events).await? {
            return Ok(());
        }
        self.maybe_offer_draw(events).await?;
        self.arm_idle().await;
        Ok(())
    }

    async fn maybe_offer_draw(&mut self, events: &mut Events) -> Result<(), RuntimeError> {
        use shakmaty::Position;
        let quiet = self.table.game().position().halfmoves() >= DRAW_OFFER_HALFMOVES;
        let even = self.table.game().material_balance(self.table.user()) == 0;
        if self.table.draw_offer().is_none() && quiet && even {
            self.set_draw_offer(Some(Side::Persona), events).await?;
        }
        Ok(())
    }

    /// Ends the match if the position is over; true if it did.
    pub(super) async fn finish_if_over(&mut self, events: &mut Events) -> Result<bool, RuntimeError> {
        match self.table.game().end() {
            Some(end) => {
                self.finish(end, events).await?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Records the result, then lets the persona reflect (after_match).
    pub(super) async fn finish(&mut self, end: GameEnd, events: &mut Events) -> Result<(), RuntimeError> {
        self.record_end(end, events).await?;
        // Read back with the result, the rating and familiarity brought up
        // to date: the persona's last words and the reflection tell them.
        let known_before = self.history.familiarity.stage;
        self.history = self.load_history().await?;
        self.tell_rating(events).await?;
        self.tell_familiarity(known_before, events).await?;
        self.fire(Trigger::new(TriggerKind::AfterMatch), None, events).await?;
        if let Err(e) = self.reflect(end, events).await {
            tracing::warn!(match_id = %self.id, "no reflection for this match: {e}");
        }
        self.stop_talking();
        // Tidy this player's memories now, off the match's critical path.
        let (memory, player) = (self.node.memory.clone(), self.player.id);
        tokio::spawn(
            async move {
                if let Err(e) = memory.consolidate(Scope::Player(player), "after_match").await {
                    tracing::warn!("memory consolidation after the match failed: {e}");
                }
            }
            .in_current_span(),
        );
        Ok(())
    }

    /// The end, stored and announced (`game_over`), the idle timer stopped.
    pub(super) async fn record_end(&mut self, end: GameEnd, events: &mut Events) -> Result<(), RuntimeError> {
        self.table.finish(end);
        self.idle.cancel().await;
        let data = GameOver {
            result: end.result().into(),
            termination: end.termination().into(),
            winner: end.winner().map(|w| self.table.side_of(w)),
        };
        let write = DomainWrite::Finish {
            result: end.result().into(),
            termination: end.termination().into(),
        };
        events.push(self.emitter.emit(data, write).await?);
        // What follows (the history) reads this match's result back from SQL.
        self.emitter.settle().await?;
        Ok(())
    }

    /// Nothing more to say in this match: the actor stops after this
    /// command, and any model call still in flight is stopped.
    pub(super) fn stop_talking(&mut self) {
        self.done = true;
        for llm in [&self.agent_llm, &self.sub_llm].into_iter().flatten() {
            llm.cancel();
        }
    }

    /// Arms the next idle_wait if the user is to move and nudges remain.
    pub(super) async fn arm_idle(&mut self) {
        // A player who asked for quiet is never nudged.
        let quiet = self.voice.mode() == crate::triggers::TalkMode::Quiet;
        if quiet || self.table.game().end().is_some() || !self.table.is_users_turn() {
            return;
        }
        let scale = self.node.settings.idle_time_scale;
        let Some(delay) = self.idle.next_delay(&self.persona.idle, scale) else {
            return;
        };
        self.idle.arm(delay, self.inbox.clone()).await;
    }

    pub(super) async fn on_idle(&mut self, generation: u64) -> Result<(), RuntimeError> {
        if !self.idle.is_current(generation) {
            return Ok(());
        }
        self.idle.fired();
        let waiting = self.table.game().end().is_none() && self.table.is_users_turn();
        if !waiting {
            return Ok(());
        }
        let nudge = self.idle.nudge();
        let mut events = Vec::new();
        // A puzzle the greeting did not offer (none was due then, or the
        // match came back after a restart) may come while the player thinks.
        let offer = self.due_puzzle().await;
        let mut trigger = Trigger::idle(nudge);
        trigger.input = offer.as_ref().map(super::puzzle::offered);
        self.fire(trigger, None, &mut events).await?;
        if let Some(p) = offer {
            self.offer_puzzle(p, &mut events).await?;
        }
        self.arm_idle().await;
        Ok(())
    }
}
