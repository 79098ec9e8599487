//! `kibitz bench prompt`: the main agent's prompt size per trigger at moves
//! 10, 40 and 80 of a game. The real agent runs every trigger of the game
//! (its thread grows as in play) against a scripted model that records each
//! prompt; five recalled memories per trigger, as the subconscious gives by
//! default. Tokens come from a llama.cpp server's /tokenize if given, else
//! they are estimated at four characters a token.

use std::path::Path;

use anyhow::Context;
use chrono::Utc;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use serde_json::json;

use kibitz::agent::{Brain, BrainInput, LlmAgent};
use kibitz::chess::Game;
use kibitz::config::{Config, LlmConfig};
use kibitz::ids::{MatchId, PlayerId};
use kibitz::llm::ScriptedModel;
use kibitz::memory::{Memory, Recalled};
use kibitz::triggers::{ContextParts, GameContext, MatchHistory, Trigger, TriggerKind};

const CHECKPOINTS: [usize; 3] = [10, 40, 80];
const STOP: &str = r#"{"thinking": "fine", "actions": [{"action": "send_message", "content": "Interesting move, that.", "tone": "TONE"}, {"action": "stop"}]}"#;

pub async fn run(config: &Config, tokenizer: Option<&str>, out: &Path) -> anyhow::Result<()> {
    let personas = kibitz::personas::load_dir(&config.personas_dir)?;
    let persona = personas.first().context("no personas")?.clone();
    let answer = STOP.replace("TONE", &persona.tones[0]);
    let agent = LlmAgent::new();
    let match_id = MatchId::new();
    let (player, history) = (PlayerId::new(), MatchHistory::default());
    let memories = synthetic_memories(&persona.id);
    let mut rng = StdRng::seed_from_u64(7);
    let mut game = Game::new(None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut report = Vec::new();
    for full_move in 1..=*CHECKPOINTS.last().unwrap_or(&80) {
        for trigger in [TriggerKind::OnUserMove, TriggerKind::BeforeAgentMove] {
            if !play_on(&mut game, &mut rng) {
                break;
            }
            let ctx = context(match_id, player, &history, &game);
            let model = ScriptedModel::new().then_text(&answer);
            let input = BrainInput {
                trigger: &Trigger::new(trigger),
                ctx: &ctx,
                persona: &persona,
                memories: &memories,
                emotion: &persona.emotions[0],
                llm: Some(&model),
                sampling: LlmConfig::default().main,
                draft: None,
            };
            agent.decide(input).await?;
            if CHECKPOINTS.contains(&full_move) && trigger == TriggerKind::OnUserMove {
                let sent = model.requests().pop().context("the agent asked the model")?;
                let text: String = sent
                    .messages
                    .iter()
                    .map(|m| m.content.as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                let (tokens, exact) = count_tokens(&text, tokenizer).await;
                let label = if exact { "tokens" } else { "tokens (estimated)" };
                println!(
                    "move {full_move:>2}: {} messages, {} chars, {tokens} {label}",
                    sent.messages.len(),
                    text.len()
                );
                report.push(json!({ "move": full_move, "messages": sent.messages.len(), "chars": text.len(), "tokens": tokens, "exact": exact }));
            }
        }
        if let Some(end) = game.end() {
            println!("the random game ended at move {full_move} ({})", end.termination());
            break;
        }
    }
    let json = json!({ "at": Utc::now(), "persona": persona.id, "checkpoints": report });
    crate::bench::write_figures(out, &json)?;
    Ok(())
}

/// Plays a random move that does not end the game (the bench needs a long
/// one); false if every move would.
fn play_on(game: &mut Game, rng: &mut StdRng) -> bool {
    let mut legal = game.legal_moves();
    legal.shuffle(rng);
    for (uci, _) in legal {
        let Ok(m) = game.parse(&uci) else { continue };
        let mut trial = game.clone();
        trial.play(m);
        if trial.end().is_none() {
            *game = trial;
            return true;
        }
    }
    false
}

fn context(match_id: MatchId, player: PlayerId, history: &MatchHistory, game: &Game) -> GameContext {
    let mut ctx = GameContext::build(
        ContextParts {
            match_id,
            player_id: player,
            player_name: "Ann",
            persona_id: &"bench".into(),
            persona_elo: 1500,
            user_color: shakmaty::Color::White,
            started_at: Utc::now(),
            history,
            odds: &[],
        },
        game,
    );
    ctx.match_id = match_id;
    ctx
}

fn synthetic_memories(persona: &str) -> Vec<Recalled> {
    let lines = [
        "Ann plays the Sicilian Najdorf with Black and likes sharp lines.",
        "Ann mentioned she is training for a tournament in Vienna next spring.",
        "Ann blundered a rook on move 23 in our last game and laughed about it.",
        "Ann collects antique chess clocks.",
        "Ann prefers long time controls and hates blitz.",
    ];
    lines
        .iter()
        .filter_map(|content| {
            let memory: Memory = serde_json::from_value(json!({
                "id": uuid::Uuid::new_v4(), "player_id": null, "persona_id": persona,
                "memory_type": "player_observation", "content": content, "related_match_id": null,
                "created_by": "main_agent", "metadata": {}, "created_at": Utc::now(), "importance": 0.5,
                "pinned": false, "never_recall": false, "recall_count": 0, "last_recalled_at": null,
                "updated_at": null, "valid_to": null, "superseded_by": null, "strength": 1.0,
                "decayed_at": null, "last_seen_at": Utc::now(), "reinforcements": [], "position": null
            }))
            .ok()?;
            Some(Recalled {
                memory,
                similarity: 0.6,
                score: 0.6,
                why: String::new(),
                relevance: None,
            })
        })
        .collect()
}

/// Exact counts from a llama.cpp server's /tokenize, else chars / 4.
async fn count_tokens(text: &str, tokenizer: Option<&str>) -> (usize, bool) {
    if let Some(url) = tokenizer {
        let base = url.trim_end_matches('/').trim_end_matches("/v1");
        let reply = reqwest::Client::new()
            .post(format!("{base}/tokenize"))
            .json(&json!({ "content": text }))
            .send()
            .await;
        if let Ok(r) = reply
            && let Ok(v) = r.json::<serde_json::Value>().await
            && let Some(tokens) = v["tokens"].as_array()
        {
            return (tokens.len(), true);
        }
        tracing::warn!("no tokenizer at {base}/tokenize; estimating");
    }
    (text.len().div_ceil(4), false)
}
