//! How a trigger gets its words. With no language model, at once: recall,
//! the scripted brain, the actions. With one, the model's words are kept
//! off the game's path: the trigger is announced and its memories recalled
//! in the actor, the decision is composed in a task of its own under a
//! deadline and comes back as `Command::Words`, and the persona's move
//! never waits for it. Past the deadline the scripted voice speaks instead
//! and the model's answer is never used; words about a board the player has
//! moved on from are dropped; a newer trigger calls off words still being
//! composed, except a chat reply, which the newer trigger then does without.
//! Each trigger's log says how its words came.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tracing::Instrument;

use super::{Command, Events, MatchActor};
use crate::actions::Decision;
use crate::agent::{Brain, BrainInput, ScriptedBrain};
use crate::events::{Draft, Passing};
use crate::llm::{ChatModel, Session, TextSink};
use crate::personas::Persona;
use crate::runtime::error::RuntimeError;
use crate::runtime::timing::Phase;
use crate::triggers::{GameContext, MoveFact, Trigger, TriggerKind};
use crate::turn::{MatchSide, Pipeline, Prepared, TriggerOutcome};

/// Words being composed for the match: how to call them off, and where
/// they come (`Command::WordsReady` says when).
pub struct Composing {
    chat: bool,
    /// The player's moves when its trigger fired.
    user_moves: usize,
    cancel: oneshot::Sender<()>,
    words: oneshot::Receiver<Words>,
}

/// Words composed (or given up on), back at the actor.
pub struct Words {
    prepared: Prepared,
    ctx: GameContext,
    decision: Decision,
    took: Duration,
    /// How the words came, when not from the model in time.
    note: Option<String>,
    came: Came,
    /// The player's moves when the trigger fired.
    user_moves: usize,
}

/// How a trigger's words from the model came (the metric's outcome).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Came {
    /// Within the deadline, and spoken.
    OnTime,
    /// Past the deadline: the scripted voice spoke instead.
    Late,
    /// Called off by a newer trigger, or about a board the player left.
    Dropped,
    /// The brain failed.
    Failed,
}

impl Came {
    fn as_str(self) -> &'static str {
        match self {
            Came::OnTime => "on_time",
            Came::Late => "late",
            Came::Dropped => "dropped",
            Came::Failed => "failed",
        }
    }
}

/// Everything a composing task owns.
struct Job {
    pipeline: Pipeline,
    prepared: Prepared,
    ctx: GameContext,
    persona: Arc<Persona>,
    emotion: String,
    model: Arc<Session>,
    deadline: Duration,
    user_moves: usize,
    /// Where the words go as the model writes them.
    drafts: Passing,
}

impl Job {
    /// The model's decision, or past the deadline the scripted brain's, or
    /// nothing if called off first.
    async fn compose(self, cancelled: oneshot::Receiver<()>) -> Words {
        let started = Instant::now();
        let input = BrainInput {
            trigger: &self.prepared.trigger,
            ctx: &self.ctx,
            persona: &self.persona,
            memories: &self.prepared.memories,
            emotion: &self.emotion,
            llm: Some(self.model.as_ref() as &dyn ChatModel),
            sampling: self.pipeline.sampling,
            draft: Some(draft_events(self.drafts.clone(), self.prepared.trigger.kind)),
        };
        let brain = &self.pipeline.brain;
        let (decision, note, came) = tokio::select! {
            decided = tokio::time::timeout(self.deadline, brain.decide(input.clone())) => match decided {
                Ok(Ok(d)) => (d, None, Came::OnTime),
                Ok(Err(e)) => (Decision::default(), Some(format!("the brain failed: {e}")), Came::Failed),
                Err(_) => {
                    // The model's answer, if it ever comes, is dropped with its call.
                    let scripted = ScriptedBrain.decide(BrainInput { llm: None, draft: None, ..input }).await;
                    let secs = self.deadline.as_secs_f64();
                    let why = format!("late: the model took over {secs:.1} s, the scripted voice spoke");
                    (scripted.unwrap_or_default(), Some(why), Came::Late)
                }
            },
            _ = cancelled => match about_the_board(self.prepared.trigger.kind) {
                true => (Decision::default(), Some("dropped: a newer trigger took the model".to_string()), Came::Dropped),
                // A greeting is still owed: the scripted voice gives it.
                false => {
                    let scripted = ScriptedBrain.decide(BrainInput { llm: None, draft: None, ..input }).await;
                    let why = "cut short: a newer trigger took the model, the scripted voice spoke";
                    (scripted.unwrap_or_default(), Some(why.to_string()), Came::Dropped)
                }
            },
        };
        Words {
            prepared: self.prepared,
            ctx: self.ctx,
            decision,
            took: started.elapsed(),
            note,
            came,
            user_moves: self.user_moves,
        }
    }
}

impl MatchActor {
    /// Fires one trigger: recall, the brain, the actions.
    pub(super) async fn fire(
        &mut self,
        trigger: Trigger,
        planned: Option<MoveFact>,
        events: &mut Events,
    ) -> Result<(), RuntimeError> {
        let mut ctx = self.context();
        ctx.planned_move = planned;
        if trigger.kind == TriggerKind::AfterMatch {
            // The match's last word comes last: a chat reply being composed
            // is waited for (it may hold a fact to keep), other words end.
            let chat = self.voice.composing().is_some_and(|c| c.chat);
            self.settle_composing(!chat).await?;
        }
        match self.agent_llm.clone() {
            Some(model) if !self.model_busy(trigger.kind) => self.fire_with_model(trigger, ctx, model, events).await,
            // No model, or it is still on words that matter more: the
            // scripted voice, now.
            _ => {
                let (pipeline, kind) = (self.node.pipeline.clone(), trigger.kind);
                let outcome = pipeline.fire(trigger, &ctx, self.side()).await?;
                self.spoke(kind, outcome, events);
                Ok(())
            }
        }
    }

    /// The model's words: composed in a task (the match's last word is
    /// awaited, under the same deadline: only the reflection waits for it).
    async fn fire_with_model(
        &mut self,
        trigger: Trigger,
        ctx: GameContext,
        model: Arc<Session>,
        events: &mut Events,
    ) -> Result<(), RuntimeError> {
        // Older words (about a board this trigger has moved past) give way.
        self.settle_composing(true).await?;
        let pipeline = self.node.pipeline.clone();
        let prepared = pipeline.prepare(trigger, &ctx, &mut self.side()).await?;
        let kind = prepared.trigger.kind;
        let job = Job {
            pipeline,
            deadline: self.deadline(kind),
            prepared,
            ctx,
            persona: self.persona.clone(),
            emotion: self.voice.emotion().to_string(),
            model,
            user_moves: self.user_moves(),
            drafts: self.emitter.passing(),
        };
        let (cancel, cancelled) = oneshot::channel();
        let inbox = self.inbox.upgrade().filter(|_| kind != TriggerKind::AfterMatch);
        let Some(inbox) = inbox else {
            let words = job.compose(cancelled).await;
            return self.speak(words, events).await;
        };
        events.extend(job.prepared.events().iter().cloned());
        let (done, words) = oneshot::channel();
        self.voice.start_composing(Composing {
            chat: kind == TriggerKind::OnUserInput,
            user_moves: self.user_moves(),
            cancel,
            words,
        });
        tokio::spawn(
            async move {
                if done.send(job.compose(cancelled).await).is_ok() {
                    let _ = inbox.send(Command::WordsReady).await;
                }
            }
            .in_current_span(),
        );
        Ok(())
    }

    /// Ends the words being composed, if any: called off (`cancel`) or
    /// awaited (each is bounded by its deadline), and logged.
    async fn settle_composing(&mut self, cancel: bool) -> Result<(), RuntimeError> {
        let Some(c) = self.voice.take_composing() else {
            return Ok(());
        };
        if cancel {
            let _ = c.cancel.send(());
        }
        match c.words.await {
            Ok(words) => self.on_words(words).await,
            Err(_) => Ok(()),
        }
    }

    /// `Command::WordsReady`: the words being composed are done.
    pub(super) async fn words_ready(&mut self) -> Result<(), RuntimeError> {
        let ready = self.voice.composing_mut().map(|c| c.words.try_recv());
        match ready {
            Some(Ok(words)) => {
                self.voice.take_composing();
                self.on_words(words).await
            }
            // The task ended without words (it panicked): the model is free.
            Some(Err(oneshot::error::TryRecvError::Closed)) => {
                self.voice.take_composing();
                Ok(())
            }
            // Already taken (settled by a newer trigger), or not yet.
            _ => Ok(()),
        }
    }

    /// Words back from their task: spoken, unless they are about a board
    /// the player has moved on from. The trigger is logged either way.
    async fn on_words(&mut self, mut words: Words) -> Result<(), RuntimeError> {
        if about_the_board(words.prepared.trigger.kind)
            && words.user_moves != self.user_moves()
            && !words.decision.actions.is_empty()
        {
            words.decision = Decision::default();
            words.note = Some("dropped: the player moved on before the words were ready".into());
            words.came = Came::Dropped;
        }
        let mut announced = Vec::new();
        self.speak(words, &mut announced).await
    }

    async fn speak(&mut self, words: Words, events: &mut Events) -> Result<(), RuntimeError> {
        let Words {
            prepared,
            ctx,
            decision,
            took,
            note,
            came,
            ..
        } = words;
        crate::telemetry::model_words(came.as_str());
        let (pipeline, kind) = (self.node.pipeline.clone(), prepared.trigger.kind);
        let outcome = pipeline
            .speak(prepared, decision, took, &ctx, self.side(), note.as_deref())
            .await?;
        // The draft, if one was shown, is done: the message (on its way
        // through the journal) takes its place, or it goes.
        let spoke = outcome.events.iter().any(|e| e.body.persona_said().is_some());
        let end = Draft {
            trigger: kind,
            text: None,
            spoke: Some(spoke),
        };
        self.emitter.passing().send(end);
        self.spoke(kind, outcome, events);
        Ok(())
    }

    /// What a trigger did to the match: its time, the mood, what was said.
    fn spoke(&mut self, kind: TriggerKind, outcome: TriggerOutcome, events: &mut Events) {
        self.node.timings.record(Phase::Trigger(kind), outcome.phases.total());
        if let Some(emotion) = outcome.emotion {
            self.voice.feel(emotion);
        }
        self.voice
            .heard_itself(outcome.events.iter().filter_map(|e| e.body.persona_said()));
        events.extend(outcome.events);
    }

    fn side(&mut self) -> MatchSide<'_> {
        let (emotion, recall) = self.voice.mood_and_recall();
        MatchSide {
            persona: &self.persona,
            emotion,
            recall,
            emitter: &mut self.emitter,
            llm: None,
            sub_llm: self.sub_llm.as_deref().map(|s| s as &dyn ChatModel),
        }
    }

    /// Whether the model is composing words a `kind` trigger must not call
    /// off: a chat reply, or words about the player's latest move (the
    /// persona's own move after it then speaks with the scripted voice: one
    /// call a move). A chat line outranks words about the board.
    fn model_busy(&self, kind: TriggerKind) -> bool {
        self.voice.composing().is_some_and(|c| {
            let fresh = c.user_moves == self.user_moves();
            c.chat || (fresh && kind != TriggerKind::OnUserInput)
        })
    }

    fn deadline(&self, kind: TriggerKind) -> Duration {
        let settings = &self.node.settings;
        match kind {
            TriggerKind::OnUserInput => settings.chat_deadline,
            _ => settings.words_deadline,
        }
    }

    /// The player's moves so far: one more makes words about the board stale.
    fn user_moves(&self) -> usize {
        self.table
            .game()
            .moves()
            .iter()
            .filter(|m| m.mover == self.table.user())
            .count()
    }
}

/// Passing `draft` events with the persona's message as the model writes it.
fn draft_events(drafts: Passing, kind: TriggerKind) -> TextSink {
    TextSink::new(move |text| {
        drafts.send(Draft {
            trigger: kind,
            text: Some(text.to_string()),
            spoke: None,
        })
    })
}

/// Words a player's next move makes stale.
fn about_the_board(kind: TriggerKind) -> bool {
    matches!(
        kind,
        TriggerKind::OnUserMove | TriggerKind::BeforeAgentMove | TriggerKind::IdleWait
    )
}
