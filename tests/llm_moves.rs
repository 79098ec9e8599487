//! Move brains against a real LLM (llama-server with SmolLM2-135M): the
//! multi-turn dialog with board commands and the agent pipeline (with function calling and
//! tool messages) reach a real OpenAI-compatible server and always yield a
//! legal move, counting fallbacks; and a persona whose card says
//! `brain = "llm"` plays its match through `kibitz serve`.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::llama::LlamaServer;
use common::{Server, repo};
use kibitz::chess::Game;
use kibitz::chess::engine::{BuiltinEngine, SearchBudget, Style};
use kibitz::llm::{ChatModel, OpenAiModel};
use kibitz::moves::selfplay::{Tally, play_game};
use kibitz::moves::{
    EngineBrain, LlmBrain, LlmBrainConfig, MoveAction, MoveBrain, MoveInput, PipelineBrain, PipelineConfig, RandomBrain,
};

fn model(llama: &LlamaServer) -> Arc<dyn ChatModel> {
    Arc::new(OpenAiModel::new(&llama.url, "smollm2", None, Duration::from_secs(60)))
}

fn fallback() -> EngineBrain {
    EngineBrain::new(
        Arc::new(BuiltinEngine),
        1500,
        Style::Positional,
        SearchBudget::Millis(50),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_llm_brains_always_produce_legal_moves() {
    let llama = LlamaServer::start().await;

    // The LLM brain plays four plies as White against random moves.
    let config = LlmBrainConfig {
        max_tokens: 48,
        max_retries: 1,
        ..LlmBrainConfig::default()
    };
    let mut llm = LlmBrain::new(model(&llama), fallback(), config);
    let record = play_game(&mut llm, &mut RandomBrain, 4).await;
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert!(Game::replay(start, &record.pgn_moves).is_ok(), "{:?}", record.pgn_moves);
    let mut tally = Tally::new(llm.name(), "random".into());
    tally.add(&record);
    let side = &tally.white_side;
    println!(
        "llm brain: {} moves, illegal {:.2}/move, fallback {:.2}/move, tokens {}+{}, p50 {:.0} ms",
        side.moves,
        side.illegal_rate,
        side.fallback_rate,
        side.prompt_tokens,
        side.completion_tokens,
        side.latency_p50_ms
    );
    assert_eq!(side.moves, 2);
    assert!(
        side.prompt_tokens > 0 && side.completion_tokens > 0,
        "real usage counted"
    );

    // The pipeline: tool definitions and tool messages go over the wire.
    let config = PipelineConfig {
        max_tokens: 64,
        max_tool_calls: 2,
        max_review_loops: 1,
        ..PipelineConfig::parse("p+e+m").unwrap()
    };
    let mut pipeline = PipelineBrain::new(model(&llama), fallback(), config);
    let game = Game::new(None).unwrap();
    let d = pipeline
        .choose(MoveInput {
            game: &game,
            rejections: &[],
        })
        .await
        .unwrap();
    let MoveAction::Move(uci) = &d.action else {
        panic!("no move")
    };
    assert!(game.parse(uci).is_ok(), "{uci}");
    let transcript = d.reasoning.unwrap_or_default();
    assert!(
        transcript.contains("player:") && transcript.contains("enemy:") && transcript.contains("mover:"),
        "every agent answered: {transcript}"
    );
    assert!(d.usage.prompt_tokens > 0);
    println!(
        "pipeline: {uci}, fallback {}, illegal {}, tokens {:?}",
        d.fallback, d.illegal, d.usage
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persona_with_an_llm_brain_plays_its_match() {
    let llama = LlamaServer::start().await;
    let personas = tempfile::tempdir().unwrap();
    let card = std::fs::read_to_string(repo().join("personas/pip.toml")).unwrap();
    let card = card.replacen("style = ", "brain = \"llm\"\nstyle = ", 1);
    std::fs::write(personas.path().join("pip.toml"), card).unwrap();
    let dir = personas.path().to_str().unwrap();
    let server = Server::start_with(&[
        ("KIBITZ_PERSONAS_DIR", dir),
        ("KIBITZ_LLM_URL", &llama.url),
        ("KIBITZ_LLM_MAX_TOKENS", "32"),
    ])
    .await;
    let player = server.new_player("Ada").await;
    let (m, _) = server.new_match(&player, "pip", "white").await;
    let (_, mut state) = server.get(&format!("/api/matches/{m}")).await;
    for turn in 0..2 {
        let legal = state["legal_moves"].as_array().unwrap().clone();
        let before = state["moves"].as_array().unwrap().len();
        let (status, out) = server
            .post(
                &format!("/api/matches/{m}/moves"),
                serde_json::json!({ "move": legal[0]["san"] }),
            )
            .await;
        assert_eq!(status, 200, "move {turn}: {out}");
        state = out["state"].clone();
        let grew = state["moves"].as_array().unwrap().len() - before;
        assert_eq!(grew, 2, "the LLM persona answered move {turn}");
    }
    let (_, state) = server.get(&format!("/api/matches/{m}")).await;
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let ucis: Vec<String> = state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv["uci"].as_str().unwrap().to_string())
        .collect();
    assert!(Game::replay(start, &ucis).is_ok(), "{ucis:?}");
}
