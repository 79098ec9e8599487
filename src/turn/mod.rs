//! One turn of the persona's mind, end to end: announce the trigger, let
//! the subconscious recall, let the brain decide, hold back what the
//! player's talk mode keeps quiet, execute the actions, and log it all with
//! timings. Failures of recall or of the brain are logged and the game goes
//! on. It stands above everything it orchestrates: `triggers/` is the
//! vocabulary (what fired, in what game), the subconscious, the brain and
//! the actions each speak it, and none of them knows this module.

use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use serde_json::json;

use crate::actions::{self, Decision, ExecContext};
use crate::agent::{Brain, BrainInput};
use crate::config::RoleConfig;
use crate::events::{Emitter, EventBody, MatchEvent, TriggerFired};
use crate::ids::MemoryId;
use crate::listen::{Heard, Listener, SharedListener};
use crate::llm::ChatModel;
use crate::memory::MemoryService;
use crate::memory::Recalled;
use crate::personas::Persona;
use crate::store::{Db, DomainWrite, RecallEntry, StoreError, Trace, TriggerLogEntry};
use crate::subconscious::{Recall, RecallState, Subconscious};
use crate::triggers::{GameContext, TalkMode, Trigger, TriggerKind, UserInput};

#[derive(Clone)]
pub struct Pipeline {
    pub db: Db,
    pub memory: MemoryService,
    pub subconscious: Subconscious,
    /// Reads a chat line's intent and facts before anything recalls or speaks.
    pub listener: SharedListener,
    pub brain: Arc<dyn Brain>,
    /// Sampling for the main agent's LLM calls.
    pub sampling: RoleConfig,
    /// Sampling for the subconscious's LLM calls.
    pub sub_sampling: RoleConfig,
}

#[derive(Debug, Default)]
pub struct TriggerOutcome {
    pub events: Vec<MatchEvent>,
    /// The persona's emotion after this trigger, if it changed.
    pub emotion: Option<String>,
    /// Where the time went, for benchmarks and the admin status.
    pub phases: Phases,
}

/// Wall time per step of one trigger.
#[derive(Debug, Default, Clone, Copy)]
pub struct Phases {
    /// The trigger event queued for the journal.
    pub announce: std::time::Duration,
    /// The subconscious (query embedding included).
    pub recall: std::time::Duration,
    pub brain: std::time::Duration,
    /// Actions executed, their events queued.
    pub actions: std::time::Duration,
    /// The trigger log row queued.
    pub log: std::time::Duration,
}

impl Phases {
    /// The whole trigger, from its announcement to its log queued.
    pub fn total(&self) -> std::time::Duration {
        self.announce + self.recall + self.brain + self.actions + self.log
    }
}

/// The match-side state a trigger reads and updates.
pub struct MatchSide<'a> {
    pub persona: &'a Persona,
    pub emotion: &'a str,
    pub recall: &'a mut RecallState,
    pub emitter: &'a mut Emitter,
    /// The match's main-agent session on the language models.
    pub llm: Option<&'a dyn ChatModel>,
    /// The match's subconscious session.
    pub sub_llm: Option<&'a dyn ChatModel>,
}

/// A trigger announced and its memories recalled: what the brain decides
/// on, now or (a language model's words) later.
pub struct Prepared {
    pub trigger: Trigger,
    pub memories: Vec<Recalled>,
    recalls: Vec<RecallEntry>,
    events: Vec<MatchEvent>,
    fired_at: chrono::DateTime<Utc>,
    started: Instant,
    phases: Phases,
}

impl Prepared {
    /// The trigger's announcement, to pass on before its words.
    pub fn events(&self) -> &[MatchEvent] {
        &self.events
    }
}

impl Pipeline {
    /// The whole trigger at once: recall, decide, speak.
    pub async fn fire(
        &self,
        trigger: Trigger,
        ctx: &GameContext,
        mut side: MatchSide<'_>,
    ) -> Result<TriggerOutcome, StoreError> {
        let prepared = self.prepare(trigger, ctx, &mut side).await?;
        let lap = Instant::now();
        let decision = self.decide(&prepared, ctx, side.persona, side.emotion, side.llm).await;
        self.speak(prepared, decision, lap.elapsed(), ctx, side, None).await
    }

    /// Hears the line, announces the trigger and recalls.
    pub async fn prepare(
        &self,
        mut trigger: Trigger,
        ctx: &GameContext,
        side: &mut MatchSide<'_>,
    ) -> Result<Prepared, StoreError> {
        trigger.heard = self.hear(&trigger, ctx).await;
        let (started, fired_at) = (Instant::now(), Utc::now());
        let kind = trigger.kind.as_str();
        let mut phases = Phases::default();
        let events = vec![
            side.emitter
                .emit(TriggerFired { trigger: trigger.kind }, DomainWrite::Nothing)
                .await?,
        ];
        phases.announce = started.elapsed();
        let lap = Instant::now();
        let sub_llm = side.sub_llm.map(|m| (m, self.sub_sampling));
        let recalled = self
            .subconscious
            .recall_with(&trigger, ctx, side.recall, sub_llm, &side.persona.name)
            .await;
        let Recall { memories, log: recalls } = recalled.unwrap_or_else(|e| {
            tracing::warn!(trigger = kind, "recall failed, going on without memories: {e}");
            Recall::default()
        });
        phases.recall = lap.elapsed();
        Ok(Prepared {
            trigger,
            memories,
            recalls,
            events,
            fired_at,
            started,
            phases,
        })
    }

    /// The brain's decision (nothing, if it failed).
    pub async fn decide(
        &self,
        p: &Prepared,
        ctx: &GameContext,
        persona: &Persona,
        emotion: &str,
        llm: Option<&dyn ChatModel>,
    ) -> Decision {
        let input = BrainInput {
            trigger: &p.trigger,
            ctx,
            persona,
            memories: &p.memories,
            emotion,
            llm,
            sampling: self.sampling,
            draft: None,
        };
        self.brain.decide(input).await.unwrap_or_else(|e| {
            let kind = p.trigger.kind.as_str();
            tracing::warn!(trigger = kind, brain = self.brain.name(), "brain failed: {e}");
            Decision::default()
        })
    }

    /// Executes the decision and logs the turn; `words` says how the words
    /// came when not at once (late, dropped), for the trigger log.
    pub async fn speak(
        &self,
        p: Prepared,
        decision: Decision,
        brain_time: std::time::Duration,
        ctx: &GameContext,
        side: MatchSide<'_>,
        words: Option<&str>,
    ) -> Result<TriggerOutcome, StoreError> {
        let Prepared {
            trigger,
            memories,
            recalls,
            mut events,
            fired_at,
            started,
            mut phases,
        } = p;
        let kind = trigger.kind.as_str();
        phases.brain = brain_time;
        let lap = Instant::now();
        let thinking = decision.thinking.clone();
        let provenance = json!({
            "trigger": kind,
            "player_name": ctx.player_name,
            "difficulty": ctx.persona_elo,
            "ply": ctx.move_count,
        });
        let cx = ExecContext {
            persona: side.persona,
            game: ctx,
            player_id: ctx.player_id,
            memory: &self.memory,
            trigger: trigger.kind,
            provenance,
            position: ctx.position_tag(),
        };
        // The player asked for quiet: only their words are answered.
        let decision = hold_back(ctx.talk, trigger.kind, decision);
        let executed = actions::execute(decision, &cx, side.emitter, &mut events).await?;
        phases.actions = lap.elapsed();
        let lap = Instant::now();
        let emotion = events.iter().rev().find_map(|e| match &e.body {
            EventBody::Emotion(felt) => Some(felt.emotion.clone()),
            _ => None,
        });
        let log = json!({
            "brain": self.brain.name(), "thinking": thinking, "heard": trigger.heard, "executed": executed,
            "words": words,
        });
        let turn = (events[0].seq, side.emitter.last_seq());
        let entry = TriggerLogEntry {
            match_id: side.emitter.match_id(),
            trigger: kind.to_string(),
            event_seq: turn.0,
            fired_at,
            traces: turn_traces(&memories, &events, turn, trigger.words_seq),
            recalls,
            actions: log.to_string(),
            duration_us: started.elapsed().as_micros() as i64,
        };
        let (micros, recalled) = (entry.duration_us, entry.recalls.len());
        let logged = self.db.log_trigger(entry).await?;
        side.emitter.track(logged);
        phases.log = lap.elapsed();
        tracing::debug!(trigger = kind, micros, recalled, "trigger done");
        Ok(TriggerOutcome {
            events,
            emotion,
            phases,
        })
    }
}

impl Pipeline {
    /// A chat line's intent and facts: by its words, and by its meaning when
    /// the model can afford the line (its recall then finds the vector in
    /// the memo; under load, rules alone decide).
    async fn hear(&self, trigger: &Trigger, ctx: &GameContext) -> Option<Heard> {
        let Some(UserInput::Chat { text }) = &trigger.input else {
            return None;
        };
        let embedder = self.memory.embedder();
        let limits = self.subconscious.query_limits();
        let affordable = embedder.affordable(text, crate::subconscious::situation::CHATTING, limits) == text;
        let vector = match affordable {
            true => embedder.embed_one(text).await.ok(),
            false => None,
        };
        let rules_only = Listener::default();
        let listener = self.listener.get().unwrap_or(&rules_only);
        Some(listener.hear_on(text, vector.as_deref(), &ctx.player_name, ctx.now.date_naive()))
    }
}

/// The memories this turn's rows (events `turn.0..=turn.1`) quote or used:
/// the player's memories it recalled, and those it saved or reinforced,
/// which were made from the player's words (event `words`) if it answered a
/// chat. Lore is the persona's, never erased, and not traced.
fn turn_traces(recalled: &[Recalled], events: &[MatchEvent], turn: (i64, i64), words: Option<i64>) -> Vec<Trace> {
    let trace = |memory_id, source_seq| Trace {
        memory_id,
        first_seq: turn.0,
        last_seq: turn.1,
        source_seq,
    };
    let saved: Vec<MemoryId> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::MemorySaved(saved) => Some(saved.id),
            _ => None,
        })
        .collect();
    let mut traces: Vec<Trace> = saved.iter().map(|id| trace(*id, words)).collect();
    for r in recalled.iter().filter(|r| r.memory.player_id.is_some()) {
        if !saved.contains(&r.memory.id) {
            traces.push(trace(r.memory.id, None));
        }
    }
    traces
}

/// The decision without its messages where the talk mode keeps the persona
/// quiet (its mood and memories stay).
fn hold_back(talk: TalkMode, kind: TriggerKind, mut decision: Decision) -> Decision {
    if !talk.may_speak(kind) {
        decision
            .actions
            .retain(|a| !matches!(a, actions::Action::SendMessage { .. }));
    }
    decision
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::Action;

    #[test]
    fn quiet_holds_back_all_but_answers() {
        let decision = Decision {
            thinking: None,
            actions: vec![Action::say("Hi!", "playful"), Action::feel("excited"), Action::Stop],
        };
        for kind in [
            TriggerKind::BeforeMatch,
            TriggerKind::OnUserMove,
            TriggerKind::BeforeAgentMove,
            TriggerKind::IdleWait,
            TriggerKind::AfterMatch,
        ] {
            let held = hold_back(TalkMode::Quiet, kind, decision.clone());
            assert_eq!(held.actions, [Action::feel("excited"), Action::Stop], "{kind:?}");
            assert_eq!(hold_back(TalkMode::Normal, kind, decision.clone()), decision);
        }
        let answered = hold_back(TalkMode::Quiet, TriggerKind::OnUserInput, decision.clone());
        assert_eq!(answered, decision);
    }
}
