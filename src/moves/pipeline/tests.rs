use std::sync::Arc;

use super::*;
use crate::chess::engine::{BuiltinEngine, SearchBudget, Style};
use crate::llm::{Role, ScriptedModel};
use crate::moves::MoveAction;

fn brain(model: Arc<ScriptedModel>, spec: &str) -> PipelineBrain {
    let engine = EngineBrain::new(
        Arc::new(BuiltinEngine),
        1500,
        Style::Positional,
        SearchBudget::Millis(50),
    );
    PipelineBrain::new(model, engine, PipelineConfig::parse(spec).unwrap())
}

async fn choose(b: &mut PipelineBrain, game: &Game) -> MoveDecision {
    b.choose(MoveInput { game, rejections: &[] }).await.unwrap()
}

#[tokio::test]
async fn a_rejected_strategy_goes_back_to_the_player_then_plan_and_move() {
    let model = Arc::new(
        ScriptedModel::new()
            .then_call("analyze_board", r#"{"action":"captures"}"#)
            .then_text("STRATEGY: grab space\nKEY_MOVE: g2g4\nREASONING: bold")
            .then_text("WEAKNESS: kingside\nPUNISHMENT: e5 Qh4\nRATING: blunder")
            .then_text("STRATEGY: centre\nKEY_MOVE: e2e4\nREASONING: sound")
            .then_text("WEAKNESS: none found\nPUNISHMENT: none\nRATING: good")
            .then_text("MOVE: e2e4 because the centre matters")
            .then_text("e2e4"),
    );
    let mut b = brain(model.clone(), "p+e+pl+m");
    let game = Game::new(None).unwrap();
    let d = choose(&mut b, &game).await;
    assert_eq!(d.action, MoveAction::Move("e2e4".into()));
    assert!(!d.fallback);
    let reqs = model.requests();
    assert_eq!(reqs.len(), 7, "player+tool, enemy, player, enemy, planner, mover");
    // The harness made deep_analysis the player's first tool call.
    let first = &reqs[0].messages;
    assert_eq!(first[2].tool_calls[0].arguments, r#"{"action":"deep_analysis"}"#);
    assert_eq!(first[3].role, Role::Tool);
    assert!(first[3].content.contains("king"), "{}", first[3].content);
    // The player's own tool call was answered from the board.
    let tool_answer = reqs[1].messages.last().unwrap();
    assert_eq!(tool_answer.role, Role::Tool);
    assert_eq!(tool_answer.content, "no captures");
    // The enemy's critique reached the player's second attempt.
    assert!(reqs[3].messages[1].content.contains("rated your last proposal blunder"));
    // The mover has no tools and a tiny budget.
    assert!(reqs[6].tools.is_empty() && reqs[6].max_tokens == 64);
    assert!(d.reasoning.unwrap().contains("enemy: WEAKNESS: kingside"));
}

#[tokio::test]
async fn the_checkmate_override_refuses_a_move_that_allows_mate() {
    // After 1.f3 e5, 2.g4 allows Qh4 mate.
    let game = Game::replay(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["f2f3".into(), "e7e5".into()],
    )
    .unwrap();
    let model = Arc::new(ScriptedModel::new().then_text("g2g4").then_text("e2e4"));
    let mut b = brain(model.clone(), "m");
    let d = choose(&mut b, &game).await;
    assert_eq!(d.action, MoveAction::Move("e2e4".into()));
    let second = &model.requests()[1].messages[1].content;
    assert!(second.contains("CHECKMATE OVERRIDE: g2g4 allows"), "{second}");
}

#[tokio::test]
async fn illegal_moves_rerun_the_pipeline_then_the_engine_moves() {
    let model = Arc::new(
        ScriptedModel::new()
            .then_text("e2e5")
            .then_text("Ke3")
            .then_text("nothing"),
    );
    let mut b = brain(model, "m");
    let game = Game::new(None).unwrap();
    let d = choose(&mut b, &game).await;
    assert!(d.fallback);
    assert_eq!(d.illegal, 3);
    let MoveAction::Move(uci) = d.action else { panic!() };
    assert!(game.parse(&uci).is_ok());
}

#[test]
fn specs_parse_and_unknown_agents_are_named() {
    assert_eq!(PipelineConfig::parse("p+e+pl+m").unwrap().agents.len(), 4);
    assert_eq!(
        PipelineConfig::parse("player+mover").unwrap().agents,
        vec![AgentKind::Player, AgentKind::Mover]
    );
    assert!(PipelineConfig::parse("p+x").unwrap_err().contains("\"x\""));
}
