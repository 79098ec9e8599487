//! The main agent on a language model. One call per trigger with the
//! JSON actions as structured output (or the first JSON object in the prose);
//! an invalid answer gets one corrective retry at temperature + 0.1, then the
//! scripted brain acts for that turn and the failed turn stays out of the
//! thread. The game never waits on a broken model.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use async_trait::async_trait;

use super::draft::draft_message;
use super::floor;
use super::prompt;
use super::speech::{self, SpeechLog};
use super::validate::{parse_decision, summary};
use super::{Brain, BrainError, BrainInput, ScriptedBrain, bounded_entry};
use crate::actions::{Action, Decision};
use crate::ids::MatchId;
use crate::llm::{ChatModel, ChatRequest, Message, TextSink, Usage};
use crate::store::scrub::Forms;
use crate::triggers::TriggerKind;

/// Earlier turns kept in a match's thread, as (label, what was done).
const THREAD_TURNS: usize = 6;
#[derive(Default)]
pub struct LlmAgent {
    fallback: ScriptedBrain,
    threads: Mutex<HashMap<MatchId, VecDeque<(String, String)>>>,
    speech: SpeechLog,
}

impl LlmAgent {
    pub fn new() -> Self {
        Self::default()
    }

    fn messages(&self, input: &BrainInput<'_>) -> Vec<Message> {
        let mut out = vec![Message::system(prompt::system(input))];
        if let Ok(threads) = self.threads.lock()
            && let Some(thread) = threads.get(&input.ctx.match_id)
        {
            for (label, done) in thread {
                out.push(Message::user(label.clone()));
                out.push(Message::assistant(done.clone()));
            }
        }
        out.push(Message::user(prompt::turn(input)));
        out
    }

    fn remember(&self, input: &BrainInput<'_>, decision: &Decision) {
        let label = format!("[{} at move {}]", input.trigger.kind.as_str(), input.ctx.move_count);
        let Ok(mut threads) = self.threads.lock() else { return };
        if input.trigger.kind == TriggerKind::AfterMatch {
            threads.remove(&input.ctx.match_id);
            return;
        }
        let thread = bounded_entry(&mut threads, input.ctx.match_id);
        thread.push_back((label, summary(decision)));
        // Trimmed by half when full, not turn by turn: a thread that slides
        // by one changes the prompt right after the system message on every
        // call and the server's cached prefix is lost; this way most calls
        // extend the prompt the server has seen.
        if thread.len() > THREAD_TURNS {
            thread.drain(..thread.len() - THREAD_TURNS / 2);
        }
    }

    /// A quiet trigger (a move, the persona's own move, idleness) the
    /// persona's chattiness leaves silent: the scripted voice's decision
    /// (a mood, say), with no model call. None when there is something to
    /// say, for the model to say it.
    async fn quiet_turn(&self, input: &BrainInput<'_>) -> Option<Decision> {
        let asked_quiet = !input.ctx.talk.may_speak(input.trigger.kind);
        if !speech::holds(input.trigger.kind) && !asked_quiet {
            return None;
        }
        let scripted = BrainInput {
            llm: None,
            draft: None,
            ..input.clone()
        };
        let mut decision = self.fallback.decide(scripted).await.ok()?;
        let speaks = decision.actions.iter().any(|a| matches!(a, Action::SendMessage { .. }));
        let why = match (speaks, self.speech.would_hold(input)) {
            _ if asked_quiet => "the player asked for quiet",
            (true, false) => return None,
            (true, true) => "I spoke lately",
            (false, _) => "nothing here calls for words",
        };
        decision.actions.retain(|a| !matches!(a, Action::SendMessage { .. }));
        let before = decision.thinking.take().unwrap_or_default();
        decision.thinking = Some(
            format!("{before} (quiet: {why}; no model call)")
                .trim_start()
                .to_string(),
        );
        Some(decision)
    }

    /// The model's decision with the scripted brain's floor under it
    /// (`floor.rs`): an unanswered greeting or question answered, a fact
    /// heard and not saved saved. The scripted brain is asked only when
    /// the trigger could need it.
    async fn hold_floor(&self, input: &BrainInput<'_>, decision: &mut Decision) {
        if !floor::must_answer(input) && floor::heard_facts(input).is_empty() {
            return;
        }
        let scripted = BrainInput {
            llm: None,
            draft: None,
            ..input.clone()
        };
        let Ok(under) = self.fallback.decide(scripted).await else {
            return;
        };
        let added = floor::hold(decision, &under, input);
        if !added.is_empty() {
            let before = decision.thinking.take().unwrap_or_default();
            let note = format!("{before} (kept: {})", added.join("; "));
            decision.thinking = Some(note.trim_start().to_string());
        }
    }

    /// One answer, checked; `Err` carries the reason to show the model.
    async fn attempt(
        &self,
        model: &dyn ChatModel,
        input: &BrainInput<'_>,
        messages: &[Message],
        temperature: f32,
        usage: &mut Usage,
    ) -> Result<Decision, (String, String)> {
        let sampling = input.sampling;
        let mut req = ChatRequest::new(messages.to_vec(), temperature, sampling.max_tokens);
        req.json_schema = Some(("kibitz_actions".into(), prompt::schema(input)));
        req.stream = input.draft.clone().map(drafting);
        let reply = model
            .chat(&req)
            .await
            .map_err(|e| (String::new(), format!("call failed: {e}")))?;
        *usage += reply.usage;
        parse_decision(&reply.content, input).map_err(|why| (reply.content, why))
    }
}

/// The stream of an answer's text, read as the persona's message so far:
/// each time it grows, the whole draft goes to `draft`.
fn drafting(draft: TextSink) -> TextSink {
    let written = Mutex::new((String::new(), 0usize));
    TextSink::new(move |piece| {
        let Ok(mut written) = written.lock() else { return };
        written.0.push_str(piece);
        let message = draft_message(&written.0).filter(|m| m.len() > written.1);
        if let Some(message) = message {
            written.1 = message.len();
            draft.send(&message);
        }
    })
}

#[async_trait]
impl Brain for LlmAgent {
    fn name(&self) -> &'static str {
        "llm"
    }

    fn forget(&self, matches: &[MatchId], forms: &Forms) {
        let Ok(mut threads) = self.threads.lock() else { return };
        for id in matches {
            let Some(thread) = threads.get_mut(id) else { continue };
            for (label, done) in thread.iter_mut() {
                for text in [label, done] {
                    if let Some(clean) = forms.scrub_text(text) {
                        *text = clean;
                    }
                }
            }
        }
    }

    async fn decide(&self, input: BrainInput<'_>) -> Result<Decision, BrainError> {
        let Some(model) = input.llm else {
            return self.fallback.decide(input).await;
        };
        if let Some(mut quiet) = self.quiet_turn(&input).await {
            self.speech.limit(&input, &mut quiet);
            return Ok(quiet);
        }
        let mut messages = self.messages(&input);
        let temperature = input.sampling.temperature;
        let mut usage = Usage::default();
        let first = self.attempt(model, &input, &messages, temperature, &mut usage).await;
        let result = match first {
            Ok(d) => Ok(d),
            Err((answer, why)) if !answer.is_empty() => {
                messages.push(Message::assistant(answer));
                messages.push(Message::user(format!(
                    "That answer was not valid: {why}. Answer again with only the JSON object."
                )));
                // Not drafted: its draft would start the words over.
                let quiet = BrainInput {
                    draft: None,
                    ..input.clone()
                };
                self.attempt(model, &quiet, &messages, temperature + 0.1, &mut usage)
                    .await
            }
            Err(e) => Err(e),
        };
        let mut decision = match result {
            Ok(mut d) => {
                self.hold_floor(&input, &mut d).await;
                self.remember(&input, &d);
                d
            }
            Err((_, why)) => {
                tracing::warn!(model = %model.describe(), "main agent answer unusable ({why}); scripted brain acts");
                let mut d = self.fallback.decide(input.clone()).await?;
                d.thinking = Some(format!("scripted fallback: {why}"));
                d
            }
        };
        self.speech.limit(&input, &mut decision);
        tell_adapted_strength(&input, &mut decision);
        Ok(decision)
    }
}

/// A match where the persona adapted its strength says so at its start:
/// if the model's greeting left out the strength, the plain notice follows.
fn tell_adapted_strength(input: &BrainInput<'_>, decision: &mut Decision) {
    let Some(notice) = super::scripted::adapted_notice(input.ctx) else {
        return;
    };
    let plays_at = input
        .ctx
        .history
        .rating
        .adapted
        .map(|a| crate::rating::figure(f64::from(a.plays_at)));
    let told = decision.actions.iter().any(|a| match a {
        Action::SendMessage { content, .. } => plays_at.as_ref().is_some_and(|f| content.contains(f.as_str())),
        _ => false,
    });
    if input.trigger.kind == TriggerKind::BeforeMatch && !told {
        let at = decision.actions.iter().position(|a| *a == Action::Stop);
        let say = Action::say(notice, &input.persona.tones[0]);
        decision.actions.insert(at.unwrap_or(decision.actions.len()), say);
    }
}
