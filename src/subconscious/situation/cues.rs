//! From a typed `Situation` to weighted concept cues: what in this moment a
//! memory could be about, how much it matters now (0..=1), and why, in the
//! persona's words. Weights say how central a fact is to the moment: the
//! tactic on the board or the opening the player chose is the moment; the
//! phase or a piece's name is only its setting.

use shakmaty::Role;

use super::{Cue, MoveSeen, OpeningSeen, Situation, chat};
use crate::chess::notation::role_name;
use crate::chess::odds::MoveClass;
use crate::memory::concepts::opening_tag;
use crate::subconscious::board::{EndgameKind, Imbalance, Motif, MoveTrait, Phase};
use crate::subconscious::plans::Plan;
use crate::triggers::TriggerKind;

/// The cues of a situation, strongest first, one per tag.
pub fn derive(s: &Situation) -> Vec<Cue> {
    let mut cues = match s.trigger {
        TriggerKind::BeforeMatch => returning(s),
        TriggerKind::OnUserInput => match (&s.chat, s.draw_offer) {
            (Some(text), _) => asked(s)
                .unwrap_or_default()
                .into_iter()
                .chain(chat::told(s))
                .chain(chat::said(s, text))
                .collect(),
            (None, Some(win_pct)) => draw_offer(s, win_pct),
            (None, None) => Vec::new(),
        },
        TriggerKind::OnUserMove => user_moved(s),
        TriggerKind::BeforeAgentMove => about_to_move(s),
        TriggerKind::IdleWait => idle(s),
        TriggerKind::AfterMatch => match_over(s),
    };
    cues.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    let mut seen = std::collections::HashSet::new();
    cues.retain(|c| seen.insert(c.tag.clone()));
    cues
}

fn returning(s: &Situation) -> Vec<Cue> {
    let h = &s.history;
    // Whoever sits down, the persona remembers what they said of themselves,
    // and their record and openings: from the games played here, or from
    // memories imported with no game here (another club's, another tool's).
    let mut cues = vec![
        Cue::new("personal", 0.6, "what you told me about yourself"),
        Cue::new("record", 1.0, "our record"),
        Cue::new("past_game", 1.0, "how our last game went"),
        // Any memory that names a result, beside those about the results.
        Cue::new("result", 0.5, "how our games went"),
    ];
    match &h.streak {
        Some((run, n)) if *n >= 2 => {
            let words = run.replace('_', " ");
            cues.push(Cue::new("streak", 1.0, &format!("a streak: {words} {n} in a row")));
        }
        _ => cues.push(Cue::new("streak", 0.5, "our run of results")),
    }
    cues.push(colour(s, 0.9));
    cues.push(Cue::new("opening", 0.4, "what you like to open with"));
    cues.extend(usual_openings(s));
    cues
}

/// The families the player keeps choosing with this colour: a memory of
/// their Sicilian matters when they sit down as Black again.
fn usual_openings(s: &Situation) -> impl Iterator<Item = Cue> + '_ {
    let side = if s.user_colour.is_white() { "White" } else { "Black" };
    s.history.usual_openings.iter().take(2).map(move |u| {
        let (weight, reason) = if u.games >= 2 {
            (
                0.9,
                format!(
                    "your usual {} as {side} ({} of your last {} games)",
                    u.family, u.games, u.of
                ),
            )
        } else {
            (0.7, format!("the {} you chose as {side} before", u.family))
        };
        Cue::new(&opening_tag(&u.family), weight, &reason)
    })
}

fn colour(s: &Situation, weight: f32) -> Cue {
    if s.user_colour.is_white() {
        Cue::new("as_white", weight, "your openings as White")
    } else {
        Cue::new("as_black", weight, "your defences as Black")
    }
}

/// A question about the two of them ("do you remember me?", "what did I
/// play last time?") is answered from what a greeting recalls.
/// Asked for, a memory may come again although the greeting gave it.
fn asked(s: &Situation) -> Option<Vec<Cue>> {
    (s.intent? == crate::listen::Intent::AsksMemory).then(|| {
        let mut cues = returning(s);
        // Each question is a reason of its own: asked twice, told twice.
        let question: String = s.chat.as_deref().unwrap_or_default().chars().take(60).collect();
        for c in &mut cues {
            c.reason = format!("you asked \"{question}\": {}", c.reason);
        }
        cues
    })
}

fn draw_offer(s: &Situation, win_pct: Option<f64>) -> Vec<Cue> {
    let mut cues = vec![Cue::new("draw", 1.0, "you offer a draw")];
    cues.extend(setting(s, 0.8));
    let behind = s.board.as_ref().is_some_and(|b| b.user_balance < 0) || win_pct.is_some_and(|p| p < 35.0);
    if behind {
        cues.push(Cue::new("down_material", 0.8, "you offer it from behind"));
    }
    cues
}

fn user_moved(s: &Situation) -> Vec<Cue> {
    let mut cues = opening(s, 1.0);
    if let Some(m) = &s.user_move {
        cues.extend(move_cues(m, Voice::Yours));
        if matches!(m.class, Some(MoveClass::Blunder | MoveClass::Mistake)) {
            cues.push(Cue::new("blunder", 0.8, "that move was a mistake"));
        }
        cues.extend(m.think_secs.and_then(thinking));
    }
    if let Some(b) = &s.board {
        if b.user_king_in_centre {
            cues.push(Cue::new("king_in_centre", 0.9, "your king is still in the centre"));
        }
        // The persona is to move: its chances are what the player allowed.
        if !b.user_to_move {
            cues.extend(
                b.chances
                    .iter()
                    .flat_map(|&m| motif_cues(m, Voice::YouLeftMe))
                    .map(|c| c.scaled(0.9)),
            );
        }
    }
    cues.extend(setting(s, 1.0));
    cues
}

/// A long think is a moment of its own; an instant move only colours one.
fn thinking(secs: f64) -> Option<Cue> {
    if secs >= LONG_THINK_SECS {
        let minutes = (secs / 60.0).round().max(1.0);
        let words = if minutes < 2.0 {
            "a minute".to_string()
        } else {
            format!("{minutes} minutes")
        };
        Some(Cue::new("thinking_time", 0.9, &format!("you thought for {words}")))
    } else if secs < INSTANT_SECS {
        Some(Cue::new("thinking_time", 0.3, "you moved at once"))
    } else {
        None
    }
}

/// Seconds: a think this long is one a club player notices; a move this quick is instant.
const LONG_THINK_SECS: f64 = 90.0;
const INSTANT_SECS: f64 = 2.0;

fn about_to_move(s: &Situation) -> Vec<Cue> {
    let mut cues: Vec<Cue> = opening(s, 0.6);
    if let Some(m) = &s.planned {
        cues.extend(move_cues(m, Voice::Mine));
    }
    // The move it answers weighs less than its own; the answer is a
    // moment of its own, so a memory the move brought may come again.
    if let Some(m) = &s.user_move {
        cues.extend(move_cues(m, Voice::Yours).into_iter().map(|c| Cue {
            reason: format!("I answer: {}", c.reason),
            ..c.scaled(0.7)
        }));
    }
    // What the board offers, whether or not the persona takes it.
    if let Some(b) = s.board.as_ref().filter(|b| !b.user_to_move) {
        cues.extend(
            b.chances
                .iter()
                .flat_map(|&m| motif_cues(m, Voice::OnTheBoard))
                .map(|c| c.scaled(0.7)),
        );
        cues.extend(b.offers.iter().map(|&p| plan_cue(p, "").scaled(0.7)));
    }
    cues.extend(setting(s, 0.7));
    cues
}

fn idle(s: &Situation) -> Vec<Cue> {
    // Silence is time taken, or a player called away: what they said of
    // either explains it.
    let mut cues = vec![
        Cue::new("thinking_time", 1.0, "you are taking your time"),
        Cue::new("away", 1.0, "you have gone quiet"),
    ];
    // ... or the position: a long think over a bishop ending is a think
    // about bishop endings, and what they did in the last one.
    cues.extend(setting(s, 0.8));
    cues
}

fn match_over(s: &Situation) -> Vec<Cue> {
    let mut cues = vec![
        Cue::new("result", 1.0, "how our games end"),
        Cue::new("streak", 0.9, "our run of results"),
    ];
    match s.end {
        Some(("resignation", _)) => cues.push(Cue::new("resign", 1.0, "you resigned")),
        Some(("checkmate", _)) => cues.push(Cue::new("mate", 0.6, "a checkmate")),
        Some((_, None)) => cues.push(Cue::new("draw", 1.0, "a draw")),
        _ => {}
    }
    // How they take a result, and the kind of ending it came in.
    match s.end {
        Some((_, Some(false))) => cues.push(Cue::new("mood", 0.6, "how you take a loss")),
        Some((_, Some(true))) => cues.push(Cue::new("mood", 0.4, "how you take a win")),
        _ => {}
    }
    cues.extend(setting(s, 0.6));
    cues
}

/// The opening family, while the game is still in its opening: the
/// player's own choice weighs most.
fn opening(s: &Situation, scale: f32) -> Vec<Cue> {
    if s.board.as_ref().is_some_and(|b| b.phase != Phase::Opening) {
        return Vec::new();
    }
    let mut cues = vec![colour(s, 0.5)];
    match &s.opening {
        Some(o) => {
            let (weight, whose) = if o.chosen_by_user { (1.0, "your") } else { (0.7, "the") };
            cues.push(Cue::new(
                &opening_tag(&o.family),
                weight,
                &format!("{whose} {}", o.family),
            ));
            cues.push(Cue::new("opening", 0.5, "the opening"));
            cues.extend(gambit(o));
        }
        None => cues.push(Cue::new("opening", 0.4, "the opening")),
    }
    cues.into_iter().map(|c| c.scaled(scale)).collect()
}

/// A gambit on the board, and what the player made of it: offered,
/// declined or taken ("declines every gambit put to him", "takes every
/// pawn offered"), from the opening's name.
fn gambit(o: &OpeningSeen) -> Option<Cue> {
    if !o.name.contains("Gambit") {
        return None;
    }
    let reason = match (
        o.chosen_by_user,
        o.name.contains("Declined"),
        o.name.contains("Accepted"),
    ) {
        (true, _, _) => "your gambit",
        (false, true, _) => "you declined the gambit",
        (false, false, true) => "you took the gambit pawn",
        _ => "a gambit offered to you",
    };
    Some(Cue::new("gambit", 0.7, reason))
}

/// The phase and the endgame's kind, weighted by how much the trigger is
/// about the board (`strong`).
fn setting(s: &Situation, strong: f32) -> Vec<Cue> {
    let Some(b) = &s.board else { return Vec::new() };
    let mut cues = Vec::new();
    if let Some((tag, words)) = b.endgame.and_then(endgame_words) {
        cues.push(Cue::new(tag, strong, words));
    }
    // "Knight endings are her weak spot": the pieces left name it too.
    if b.endgame == Some(EndgameKind::Knight) {
        cues.push(Cue::new("knight", 0.8 * strong, "the knights"));
    }
    let phase = match b.phase {
        Phase::Opening => "opening",
        Phase::Middlegame => "middlegame",
        Phase::Endgame => "endgame",
    };
    let weight = if b.phase == Phase::Endgame { 0.6 * strong } else { 0.3 };
    cues.push(Cue::new(phase, weight, &format!("the {phase}")));
    match b.imbalance {
        Some(Imbalance::ExchangeDown | Imbalance::PawnsForPiece) => {
            cues.push(Cue::new("down_material", 0.5 * strong, "you are down material"))
        }
        Some(Imbalance::ExchangeUp | Imbalance::PieceForPawns) => {}
        None if b.user_balance < 0 => cues.push(Cue::new("down_material", 0.4 * strong, "you are down material")),
        None => {}
    }
    cues
}

fn endgame_words(kind: EndgameKind) -> Option<(&'static str, &'static str)> {
    Some(match kind {
        EndgameKind::Pawn => ("pawn_endgame", "a king and pawn endgame"),
        EndgameKind::Rook => ("rook_endgame", "a rook endgame"),
        EndgameKind::Queen => ("queen_endgame", "a queen endgame"),
        EndgameKind::OppositeBishops => ("opposite_bishops", "opposite-coloured bishops"),
        EndgameKind::Knight => ("minor_piece_endgame", "a knight endgame"),
        EndgameKind::MinorPiece => ("minor_piece_endgame", "a minor piece endgame"),
        EndgameKind::Mixed => return None,
    })
}

/// Whose move or chance a cue is about, for the words of its reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Voice {
    /// The player's move.
    Yours,
    /// The persona's planned move.
    Mine,
    /// What the player's move left the persona.
    YouLeftMe,
    /// What the board offers the persona before it moves.
    OnTheBoard,
}

/// A move's kind and tactics.
fn move_cues(m: &MoveSeen, voice: Voice) -> Vec<Cue> {
    let mine = voice == Voice::Mine;
    let who = if mine { "I" } else { "you" };
    let mut cues = Vec::new();
    for t in &m.traits {
        match t {
            MoveTrait::QueenTrade if mine => cues.push(Cue::new("queen_trade", 1.0, "I take back: the queens are off")),
            MoveTrait::QueenTrade => cues.push(Cue::new("queen_trade", 1.0, "you trade queens")),
            MoveTrait::ExchangeSacrifice => {
                cues.push(Cue::new("exchange_sacrifice", 1.0, &format!("{who} gave the exchange")));
                cues.push(Cue::new("sacrifice", 0.6, "a sacrifice"));
            }
            MoveTrait::Sacrifice => cues.push(Cue::new("sacrifice", 0.8, &format!("{who} sacrificed"))),
            MoveTrait::CastleQueenside => {
                cues.push(Cue::new("castling_queenside", 1.0, &format!("{who} castled queenside")))
            }
            MoveTrait::Promotion => cues.push(Cue::new("promotion", 1.0, &format!("{who} promoted a pawn"))),
            MoveTrait::PawnStorm => cues.push(Cue::new("pawn_storm", 0.7, &format!("{who} storm with pawns"))),
            MoveTrait::Capture(Role::Rook) if mine => {
                cues.push(Cue::new("exchange_sacrifice", 0.8, "I take the exchange"))
            }
            MoveTrait::Capture(Role::Queen) => cues.push(Cue::new("queen", 0.3, "the queen")),
            MoveTrait::Plan(plan) => cues.push(plan_cue(*plan, who)),
            MoveTrait::Capture(_) | MoveTrait::CastleKingside | MoveTrait::Check => {}
        }
    }
    for &motif in &m.motifs {
        cues.extend(motif_cues(motif, voice));
    }
    cues
}

/// A positional idea's cue, told of `who` made the move (or, with no
/// one, of what the board offers).
fn plan_cue(plan: Plan, who: &str) -> Cue {
    let (tag, weight, what) = match plan {
        Plan::Outpost => ("outpost", 1.0, "planted a piece on an outpost"),
        Plan::PawnGrab => ("pawn_grab", 1.0, "grabbed a pawn with the queen"),
        Plan::MinorityAttack => ("minority_attack", 1.0, "began a minority attack"),
        Plan::PassedPawn => ("passed_pawn", 0.8, "pushed a passed pawn"),
        Plan::BishopPairGiven => ("bishop_pair", 0.8, "gave up the bishop pair"),
        Plan::SacrificeAtKing => ("sacrifice", 1.0, "sacrificed a piece at the king"),
        Plan::QueenTrade => ("queen_trade", 1.0, "the queens can come off"),
        Plan::OppositeCastling => ("castling_queenside", 1.0, "the kings on opposite wings"),
    };
    match who {
        "" => Cue::new(tag, weight, what),
        _ => Cue::new(tag, weight, &format!("{who} {what}")),
    }
}

/// A tactic's cues, told in `voice`.
fn motif_cues(motif: Motif, voice: Voice) -> Vec<Cue> {
    let told = |mine: &str, yours: &str, left: &str, board: &str| -> String {
        match voice {
            Voice::Mine => mine.to_string(),
            Voice::Yours => yours.to_string(),
            Voice::YouLeftMe => left.to_string(),
            Voice::OnTheBoard => board.to_string(),
        }
    };
    match motif {
        Motif::Mate { back_rank } => {
            let why = told(
                "I mate you",
                "your mate",
                "you left me a mate in one",
                "a mate is on the board",
            );
            let mut cues = vec![Cue::new("mate", 1.0, &why)];
            if back_rank {
                cues.push(Cue::new("back_rank", 1.0, "on the back rank"));
            }
            cues
        }
        Motif::BackRank => {
            let why = told(
                "your weak back rank",
                "my back rank",
                "your back rank is weak",
                "a weak back rank",
            );
            vec![Cue::new("back_rank", 0.9, &why)]
        }
        Motif::Fork(role) => {
            let r = role_name(role);
            let why = told(
                &format!("my {r} forks"),
                &format!("your {r} fork"),
                &format!("you left me a {r} fork"),
                &format!("a {r} fork is on the board"),
            );
            vec![Cue::new("fork", 1.0, &why), Cue::new(role_tag(role), 0.3, r)]
        }
        Motif::HangingPiece(role) => {
            let r = role_name(role);
            let why = told(
                &format!("I take your loose {r}"),
                &format!("you win my {r}"),
                &format!("you left your {r} hanging"),
                &format!("your {r} is loose"),
            );
            vec![Cue::new("hanging_piece", 1.0, &why), Cue::new(role_tag(role), 0.5, r)]
        }
        Motif::Skewer => {
            let why = told(
                "my skewer",
                "your skewer",
                "you left me a skewer",
                "a skewer is on the board",
            );
            vec![Cue::new("skewer", 0.9, &why)]
        }
        Motif::Pin => vec![Cue::new(
            "pin",
            0.6,
            &told("my pin", "your pin", "you left me a pin", "a pin"),
        )],
        Motif::DiscoveredAttack => {
            let why = told(
                "my discovered attack",
                "your discovered attack",
                "you left me a discovered attack",
                "a discovered attack",
            );
            vec![Cue::new("discovered_attack", 0.7, &why)]
        }
    }
}

fn role_tag(role: Role) -> &'static str {
    match role {
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
        Role::Pawn => "pawn",
    }
}
