//! `kibitz play`: a game in the terminal. It drives the same runtime the
//! server uses, in-process, so triggers, memories and idle nudges all work.

use anyhow::Context;
use shakmaty::{Color, Position, Square};
use tokio::io::{AsyncBufReadExt, BufReader};

use kibitz::chess::Game;
use kibitz::config::Config;
use kibitz::events::{EventBody, MatchEvent, Pushed, Rating, Side};
use kibitz::ids::{MatchId, PersonaId};
use kibitz::runtime::{ColorChoice, MatchRequest, MatchState, Outcome, Runtime, RuntimeError, UserCommand};
use kibitz::store::MatchStatus;
use kibitz::triggers::TalkMode;

#[derive(clap::Args)]
pub struct PlayArgs {
    /// Persona to play (see `kibitz personas`).
    #[arg(long)]
    persona: PersonaId,
    /// Your name; the club remembers you by it across matches.
    #[arg(long, env = "USER", default_value = "guest")]
    player: String,
    /// Your colour (for a new match; an unfinished one with this persona is resumed).
    #[arg(long, value_enum, default_value = "random")]
    color: ColorArg,
    /// Start from this position instead of the initial one (not rated).
    #[arg(long)]
    fen: Option<String>,
    /// The persona plays at your rating, within 200 of its own, so the game
    /// is even; such a game is not rated.
    #[arg(long)]
    adaptive: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ColorArg {
    White,
    Black,
    Random,
}

const HELP: &str = "Type a move (e4, Nf3, e7e8q), or just talk. Commands: /board /resign /draw /accept /decline /pgn \
     /hint (the engine's move for you) /explain (why the persona's last move) /takeback (your last move, if it lets you) /puzzle <move> (answer the puzzle it offers you) \
     /quiet (it speaks only when spoken to) /chatty /talk (as usual again) /help /quit";

pub async fn run(config: Config, args: PlayArgs) -> anyhow::Result<()> {
    let runtime = Runtime::start(config).await.context("starting kibitz")?;
    let played = session(&runtime, &args).await;
    // The game's last turns (the reflection, the memories) finish first.
    super::stop(&runtime).await;
    played
}

async fn session(runtime: &Runtime, args: &PlayArgs) -> anyhow::Result<()> {
    let db = &runtime.shared().db;
    let player = match db.player_by_name(&args.player).await? {
        Some(p) => p,
        None => runtime.create_player(&args.player).await?.0,
    };
    let name = runtime
        .persona(&args.persona)
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let mut view = View {
        persona: name,
        last_seq: 0,
    };
    let id = match db.active_match(player.id, &args.persona).await? {
        Some(id) if args.fen.is_none() => {
            let state = runtime.state(id).await?;
            println!("Resuming your unfinished match {id} as {}. {HELP}", state.user_color);
            view.last_seq = state.last_seq;
            println!("{}", board(&state));
            id
        }
        _ => {
            let color = match args.color {
                ColorArg::White => ColorChoice::White,
                ColorArg::Black => ColorChoice::Black,
                ColorArg::Random => ColorChoice::Random,
            };
            let req = MatchRequest {
                color,
                fen: args.fen.as_deref(),
                utc_offset_minutes: Some(local_offset()),
                adaptive: args.adaptive,
                ..MatchRequest::new(&args.persona)
            };
            let outcome = runtime.create_match(player.id, req).await?;
            println!("You are {} against {}. {HELP}", outcome.state.user_color, view.persona);
            view.show(&outcome);
            outcome.state.id
        }
    };

    let mut live = runtime.subscribe(id).await;
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        tokio::select! {
            event = live.recv() => match event {
                Ok(Pushed::Stored(e)) => view.event(&e),
                Ok(Pushed::Passing { .. }) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => break,
            },
            line = lines.next_line() => {
                let Some(line) = line? else { break };
                if !act(runtime, id, line.trim(), &mut view).await? {
                    break;
                }
            }
        }
    }
    let state = runtime.state(id).await?;
    if state.status == MatchStatus::Finished {
        println!("\n{}", state.pgn);
    } else {
        println!("Match {id} is saved; it goes on when the server or `kibitz play` starts again.");
    }
    Ok(())
}

/// Runs one line of input; false to stop.
async fn act(runtime: &Runtime, id: MatchId, line: &str, view: &mut View) -> anyhow::Result<bool> {
    let cmd = match line {
        "" => return Ok(true),
        "/quit" | "/exit" => return Ok(false),
        "/help" => {
            println!("{HELP}");
            return Ok(true);
        }
        "/board" => {
            println!("{}", board(&runtime.state(id).await?));
            return Ok(true);
        }
        "/pgn" => {
            println!("{}", runtime.state(id).await?.pgn);
            return Ok(true);
        }
        "/resign" => UserCommand::Resign,
        "/draw" => UserCommand::OfferDraw,
        "/accept" => UserCommand::AcceptDraw,
        "/decline" => UserCommand::DeclineDraw,
        "/hint" => UserCommand::Hint,
        "/explain" => UserCommand::Explain,
        "/takeback" => UserCommand::Takeback,
        answer if answer.starts_with("/puzzle") => {
            UserCommand::Puzzle(answer.trim_start_matches("/puzzle").trim().to_string())
        }
        "/quiet" => UserCommand::Talk(TalkMode::Quiet),
        "/chatty" => UserCommand::Talk(TalkMode::Chatty),
        "/talk" => UserCommand::Talk(TalkMode::Normal),
        text => UserCommand::Move(text.to_string()),
    };
    let result = match runtime.command(id, cmd.clone()).await {
        // Not move notation at all: the user is talking.
        Err(RuntimeError::BadMove(kibitz::chess::MoveError::Unrecognised { .. })) => {
            runtime.command(id, UserCommand::Chat(line.to_string())).await
        }
        other => other,
    };
    match result {
        Ok(outcome) => {
            view.show(&outcome);
            Ok(outcome.state.status != MatchStatus::Finished)
        }
        Err(RuntimeError::GameOver) => Ok(false),
        Err(e) => {
            println!("  ! {e}");
            Ok(true)
        }
    }
}

struct View {
    persona: String,
    last_seq: i64,
}

impl View {
    fn show(&mut self, outcome: &Outcome) {
        let moved = outcome.events.iter().any(|e| matches!(e.body, EventBody::Move(_)));
        for e in &outcome.events {
            self.event(e);
        }
        if moved {
            println!("{}", board(&outcome.state));
        }
    }

    fn event(&mut self, e: &MatchEvent) {
        if e.seq <= self.last_seq {
            return;
        }
        self.last_seq = e.seq;
        let persona = &self.persona;
        match &e.body {
            EventBody::Message(m) if m.sender == Side::Persona => {
                println!("  {persona} [{}]: {}", m.tone.as_deref().unwrap_or(""), m.content)
            }
            EventBody::Emotion(felt) => println!("  ({persona} looks {})", felt.emotion),
            EventBody::Move(m) if m.side == Side::Persona => println!("  {persona} plays {}", m.san),
            EventBody::DrawOffer(offer) if offer.by == Some(Side::Persona) => {
                println!("  {persona} offers a draw (/accept or /decline)")
            }
            EventBody::GameOver(end) => println!("  Game over: {} ({})", end.result, end.termination.replace('_', " ")),
            EventBody::Rating(rating) => println!("  {}", rating_line(rating)),
            EventBody::Familiarity(stage) => println!("  {}", stage.text),
            EventBody::Talk(talk) => println!("  {}", talk.text),
            EventBody::Hint(hint) => println!("  (hint {}: {})", hint.count, hint.san),
            EventBody::Takeback(t) if t.granted => println!("  (taken back: {})", t.moves),
            EventBody::Takeback(t) => println!("  (no takeback: {})", t.why.as_deref().unwrap_or("")),
            EventBody::Puzzle(p) => match Game::new(Some(&p.fen)) {
                Ok(game) => println!(
                    "  Puzzle: you played {} here. Find better (/puzzle <move>):\n{}",
                    p.played_san,
                    diagram(&game, game.turn() == Color::White)
                ),
                Err(_) => println!("  Puzzle: {} (/puzzle <move>)", p.fen),
            },
            EventBody::PuzzleAnswer(a) if a.correct => println!("  (puzzle solved: {})", a.solution_san),
            EventBody::PuzzleAnswer(a) => println!("  (puzzle: {} was it)", a.solution_san),
            _ => {}
        }
    }
}

/// What the game did to the player's rating, from its `rating` event.
fn rating_line(r: &Rating) -> String {
    let games = r.rated_games.unwrap_or(0);
    match r.rated {
        true => format!(
            "Your rating: {} ± {} ({}) after {games} rated game{}",
            kibitz::rating::figure(r.rating.unwrap_or(0.0)),
            r.deviation.unwrap_or(0.0).round(),
            kibitz::rating::progress::signed(r.change.unwrap_or(0.0)),
            if games == 1 { "" } else { "s" }
        ),
        false => format!("Not rated: {}.", r.why.as_deref().unwrap_or("")),
    }
}

/// The board from the user's side, with coordinates.
fn board(state: &MatchState) -> String {
    let Ok(game) = Game::new(Some(&state.fen)) else {
        return state.fen.clone();
    };
    let mut out = diagram(&game, state.user_color == "white");
    let to_move = if game.turn() == Color::White { "White" } else { "Black" };
    if state.status == MatchStatus::Active {
        out.push_str(&format!(
            "  {to_move} to move{}",
            if state.your_turn { " (you)" } else { "" }
        ));
    }
    out
}

/// A position's pieces, from one side, with coordinates.
fn diagram(game: &Game, white_view: bool) -> String {
    let ranks: Vec<u32> = if white_view {
        (0..8).rev().collect()
    } else {
        (0..8).collect()
    };
    let files: Vec<u32> = if white_view {
        (0..8).collect()
    } else {
        (0..8).rev().collect()
    };
    let mut out = String::new();
    for r in &ranks {
        out.push_str(&format!("  {} ", r + 1));
        for f in &files {
            let sq = Square::from_coords(shakmaty::File::new(*f), shakmaty::Rank::new(*r));
            let c = game.position().board().piece_at(sq).map_or('.', |p| p.char());
            out.push(' ');
            out.push(c);
        }
        out.push('\n');
    }
    let letters: String = files
        .iter()
        .map(|f| format!(" {}", (b'a' + *f as u8) as char))
        .collect();
    out.push_str(&format!("    {letters}\n"));
    out
}

/// This terminal's UTC offset in minutes: the player is here.
fn local_offset() -> i32 {
    chrono::Local::now().offset().local_minus_utc() / 60
}
