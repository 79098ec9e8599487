//! The situation a trigger fires in, as a club player takes it in: typed
//! facts read from the board, the odds, the match and its history (the
//! phase by material, the endgame's kind, imbalances, the opening and who
//! chose it, what the player's move was and what it left, what the
//! persona is about to play, a draw offer and the evaluation, the
//! head-to-head). `cues.rs` turns them into weighted concept cues, which
//! are what memories are recalled by: their tags, and their phrases from a
//! closed vocabulary embedded once at start-up (`vocabulary`), so no move
//! waits for the embedding model; only a chat line's own words need it.

mod chat;
mod cues;

use shakmaty::{Color, Position};

use super::board::{self, Board, EndgameKind, Imbalance, Motif, MoveTrait, Phase};
use super::plans::{self, Plan};
use crate::chess::odds::MoveClass;
use crate::chess::openings;
use crate::chess::{Game, notation};
use crate::listen::Intent;
use crate::memory::concepts;
use crate::triggers::{GameContext, MatchHistory, MoveFact, Trigger, TriggerKind, UserInput};

/// One thing worth remembering by: a concept's tag, how much it matters
/// now (0..=1), and why, in words for the recall log and the prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    pub tag: String,
    pub weight: f32,
    pub reason: String,
}

impl Cue {
    pub fn new(tag: &str, weight: f32, reason: &str) -> Cue {
        Cue {
            tag: tag.to_string(),
            weight,
            reason: reason.to_string(),
        }
    }

    pub fn scaled(self, by: f32) -> Cue {
        Cue {
            weight: self.weight * by,
            ..self
        }
    }
}

/// The named opening the game is in, and whose choice it was.
#[derive(Debug, Clone, PartialEq)]
pub struct OpeningSeen {
    pub eco: String,
    pub name: String,
    pub family: String,
    /// The player picked it (as White, or as Black's answer).
    pub chosen_by_user: bool,
}

/// A move and what it was: its kind, the tactic it carries, the engine's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveSeen {
    pub san: String,
    /// How long the player thought over it (their moves only), in seconds.
    pub think_secs: Option<f64>,
    pub traits: Vec<MoveTrait>,
    pub motifs: Vec<Motif>,
    pub class: Option<MoveClass>,
}

/// The board as it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardSeen {
    pub phase: Phase,
    pub endgame: Option<EndgameKind>,
    /// The player's material minus the persona's, in pawns.
    pub user_balance: i32,
    pub imbalance: Option<Imbalance>,
    pub user_king_in_centre: bool,
    /// The tactics the side to move has (read at `on_user_move` and
    /// `before_agent_move` only).
    pub chances: Vec<Motif>,
    /// What else the board offers the side to move (read then too).
    pub offers: Vec<Plan>,
    /// Whether the player is the side to move.
    pub user_to_move: bool,
}

/// What the subconscious knows of the moment before it searches.
#[derive(Debug, Clone)]
pub struct Situation {
    pub trigger: TriggerKind,
    pub user_colour: Color,
    pub move_number: u32,
    pub board: Option<BoardSeen>,
    pub opening: Option<OpeningSeen>,
    /// The player's move this trigger answers (`on_user_move`, and
    /// `before_agent_move`, the persona's answer to it).
    pub user_move: Option<MoveSeen>,
    /// The persona's chosen move (`before_agent_move`).
    pub planned: Option<MoveSeen>,
    /// A draw offer, with the player's winning chances by the last evaluation.
    pub draw_offer: Option<Option<f64>>,
    pub history: MatchHistory,
    /// How the game ended (`after_match`): the termination and whether the player won.
    pub end: Option<(&'static str, Option<bool>)>,
    /// A chat line's own words, searched by meaning as they are.
    pub chat: Option<String>,
    /// What the chat line is for, as the listener heard it.
    pub intent: Option<crate::listen::Intent>,
    /// Every intent the listener heard in the line.
    pub intents: Vec<crate::listen::Intent>,
    /// Whether the line tells of the player's life, or of their tastes in
    /// chess: a memory of either kind may be what it is about (the rules'
    /// reading, when the learned one, `about`, is not there).
    pub tells: Tells,
    /// The kinds of memory the line is about, as the listener learned to
    /// read them ("my two little assistants" is about their family).
    pub about: Vec<crate::listen::Touch>,
    /// The parts of the player's life the line touches ("forty lab reports
    /// to mark" is about their work), read as their memories' are.
    pub topics: Vec<crate::listen::Touch>,
    /// Weighted cues, strongest first, one per tag (`cues::derive`).
    pub cues: Vec<Cue>,
}

/// What a chat line tells of the player, as the listener heard it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tells {
    pub life: bool,
    pub tastes: bool,
}

/// How many cue phrases are searched by meaning (the tags cover the rest).
const PHRASES: usize = 1;

impl Situation {
    pub fn read(trigger: &Trigger, ctx: &GameContext) -> Situation {
        let user_colour = if ctx.user_color == "white" {
            Color::White
        } else {
            Color::Black
        };
        let now = Game::new(Some(&ctx.fen)).ok().map(|g| Board {
            pos: g.position().clone(),
            user: user_colour,
        });
        let chat = match &trigger.input {
            Some(UserInput::Chat { text }) => Some(text.clone()),
            _ => None,
        };
        // Tactics are looked for only where a move is the moment.
        let tactics = matches!(trigger.kind, TriggerKind::OnUserMove | TriggerKind::BeforeAgentMove);
        let mut s = Situation {
            trigger: trigger.kind,
            user_colour,
            move_number: now.as_ref().map_or(1, |b| b.pos.fullmoves().get()),
            board: now.as_ref().map(|b| seen(b, tactics)),
            opening: opening(ctx, user_colour),
            user_move: match trigger.kind {
                // Before its reply the persona still sees the move it answers.
                TriggerKind::OnUserMove | TriggerKind::BeforeAgentMove => {
                    ctx.last_move().filter(|m| m.by_user).and_then(|m| move_seen(ctx, m))
                }
                _ => None,
            },
            planned: match (trigger.kind, &ctx.planned_move, &now) {
                (TriggerKind::BeforeAgentMove, Some(m), Some(b)) => planned_seen(b, m),
                _ => None,
            },
            draw_offer: matches!(trigger.input, Some(UserInput::DrawOffer { .. }))
                .then(|| user_win_pct(ctx, user_colour)),
            history: ctx.history.clone(),
            end: ctx.end.as_ref().map(|e| (e.termination, e.user_won)),
            chat,
            intent: trigger.heard.as_ref().map(|h| h.to_answer()),
            intents: trigger.heard.as_ref().map(|h| h.intents()).unwrap_or_default(),
            tells: Tells {
                life: trigger.heard.as_ref().is_some_and(|h| h.shows(Intent::SelfDisclosure)),
                tastes: trigger.heard.as_ref().is_some_and(|h| h.shows(Intent::Preference)),
            },
            about: trigger.heard.as_ref().map(|h| h.about.clone()).unwrap_or_default(),
            topics: trigger.heard.as_ref().map(|h| h.topics.clone()).unwrap_or_default(),
            cues: Vec::new(),
        };
        s.cues = cues::derive(&s);
        s
    }

    /// The tags of the kinds of memory a chat line is about (the player's
    /// life, their tastes, their record...), for a line that is about one.
    pub fn told_tags(&self) -> Vec<String> {
        chat::told(self).into_iter().map(|c| c.tag).collect()
    }

    /// The tags of every cue, strongest first.
    pub fn tags(&self) -> Vec<String> {
        self.tags_from(f32::MIN)
    }

    /// The tags of the cues weighing at least `weight`.
    pub fn tags_from(&self, weight: f32) -> Vec<String> {
        self.cues
            .iter()
            .filter(|c| c.weight >= weight)
            .map(|c| c.tag.clone())
            .collect()
    }

    /// The strongest cue a memory with these tags answers, if any.
    pub fn best_match(&self, tags: &[String]) -> Option<&Cue> {
        self.cues.iter().find(|c| tags.contains(&c.tag))
    }

    /// How well a memory's tags fit: the cues it answers, weighted; a
    /// second and third cue add less than the first.
    pub fn tag_score(&self, tags: &[String]) -> f32 {
        let mut weights: Vec<f32> = self
            .cues
            .iter()
            .filter(|c| tags.contains(&c.tag))
            .map(|c| c.weight)
            .collect();
        weights.sort_by(|a, b| b.total_cmp(a));
        weights.iter().zip([1.0, 0.5, 0.25]).map(|(w, k)| w * k).sum()
    }

    /// The sentences to search by meaning: the chat line, or the phrases of
    /// the strongest cues; a fixed sentence when there is no cue at all.
    pub fn queries(&self) -> Vec<String> {
        if let Some(text) = &self.chat {
            return vec![text.clone()];
        }
        let phrases: Vec<String> = self
            .cues
            .iter()
            .filter_map(|c| concepts::concept(&c.tag).map(|c| c.phrase))
            .take(PHRASES)
            .map(str::to_string)
            .collect();
        if phrases.is_empty() {
            vec![NOTHING_SPECIAL.to_string()]
        } else {
            phrases
        }
    }

    /// One line for a model or a log: "you left a knight fork; a rook endgame".
    /// The moves this moment turns on, in SAN: the player's, and the
    /// persona's planned one.
    pub fn moves(&self) -> Vec<&str> {
        [&self.user_move, &self.planned]
            .into_iter()
            .flatten()
            .map(|m| m.san.as_str())
            .collect()
    }

    /// Why a memory that names one of `moves()` came: the player's move is
    /// one remembered of them; the persona's own planned move is not theirs.
    pub fn why_named(&self, san: &str) -> String {
        match self.planned.as_ref().is_some_and(|m| m.san == san) {
            true => format!("{san}, as in a game of ours I remember"),
            false => format!("{san}, a move I remember of you"),
        }
    }

    pub fn summary(&self) -> String {
        let reasons: Vec<&str> = self.cues.iter().take(5).map(|c| c.reason.as_str()).collect();
        match (&self.chat, reasons.is_empty()) {
            (Some(text), true) => format!("the player says: {text}"),
            (Some(text), false) => format!("the player says: {text} ({})", reasons.join("; ")),
            (None, true) => NOTHING_SPECIAL.to_string(),
            (None, false) => reasons.join("; "),
        }
    }
}

fn seen(b: &Board, tactics: bool) -> BoardSeen {
    BoardSeen {
        phase: b.phase(),
        endgame: b.endgame(),
        user_balance: b.user_balance(),
        imbalance: b.imbalance(),
        user_king_in_centre: b.user_king_in_centre(),
        chances: if tactics { board::chances(&b.pos) } else { Vec::new() },
        offers: if tactics { plans::offers(&b.pos) } else { Vec::new() },
        user_to_move: b.pos.turn() == b.user,
    }
}

/// The opening the game is in (a game set up from a book position too).
fn opening(ctx: &GameContext, user: Color) -> Option<OpeningSeen> {
    let o = ctx.opening_name.as_ref()?;
    let family = o.family().to_string();
    let chooser = openings::book().family(&family).map(|f| f.chooser);
    Some(OpeningSeen {
        eco: o.eco.clone(),
        name: o.name.clone(),
        chosen_by_user: chooser == Some(user),
        family,
    })
}

/// The player's last move, read from the position before it.
fn move_seen(ctx: &GameContext, m: &MoveFact) -> Option<MoveSeen> {
    let before = Game::new(Some(&ctx.fen_before_last)).ok()?;
    let mv = notation::parse_move(before.position(), &m.uci).ok()?;
    Some(MoveSeen {
        san: m.san.clone(),
        think_secs: ctx.user_think_secs,
        traits: board::traits_of(before.position(), mv),
        motifs: board::motifs_of(before.position(), mv),
        class: m.odds.map(|o| o.class),
    })
}

fn planned_seen(now: &Board, m: &MoveFact) -> Option<MoveSeen> {
    let mv = notation::parse_move(&now.pos, &m.uci).ok()?;
    Some(MoveSeen {
        san: m.san.clone(),
        think_secs: None,
        traits: board::traits_of(&now.pos, mv),
        motifs: board::motifs_of(&now.pos, mv),
        class: m.odds.map(|o| o.class),
    })
}

/// The player's winning chances by the last evaluated move, in percent.
fn user_win_pct(ctx: &GameContext, user: Color) -> Option<f64> {
    let white = ctx.last_moves.iter().rev().find_map(|m| m.odds)?.white;
    Some(if user.is_white() { white } else { 100.0 - white })
}

/// The query of a moment with no cue (a quiet move, say).
pub const NOTHING_SPECIAL: &str = "A quiet moment in our game.";
/// A chat line's query when the model is too busy to embed its words.
pub const CHATTING: &str = "The player is chatting with me.";

/// Where the vocabulary's vectors are kept: beside the model they came from,
/// so every start after the first reads them instead of embedding them again.
pub fn cache_path(models_dir: &std::path::Path) -> std::path::PathBuf {
    models_dir.join("situations.vec")
}

/// Every sentence a situation can be searched by (chat lines are the
/// player's own words, not here).
pub fn vocabulary() -> Vec<String> {
    let mut all: Vec<String> = concepts::phrases().map(String::from).collect();
    all.extend([NOTHING_SPECIAL, CHATTING].map(String::from));
    all
}
