//! Lichess puzzle records (CC0; `scripts/fetch-puzzles.sh` fetches 10,000 of
//! them from the PyPI sdist of atlas-chess) and how well the board tools'
//! theme detectors find each tagged theme after the puzzle's first move.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

use super::tools::themes::Theme;

pub struct Puzzle {
    /// The position after the opponent's first move: the solver to move.
    pub pos: Chess,
    pub themes: Vec<String>,
}

/// Rows of the Lichess CSV (id, FEN, moves, rating, ..., themes); the header
/// and rows that do not parse are skipped.
pub fn parse_csv(text: &str) -> Vec<Puzzle> {
    text.lines().filter_map(parse_row).collect()
}

fn parse_row(line: &str) -> Option<Puzzle> {
    let cols: Vec<&str> = line.split(',').collect();
    let (fen, moves, themes) = (cols.get(1)?, cols.get(2)?, cols.get(7)?);
    let mut pos: Chess = fen.parse::<Fen>().ok()?.into_position(CastlingMode::Standard).ok()?;
    let first: UciMove = moves.split_whitespace().next()?.parse().ok()?;
    let m = first.to_move(&pos).ok()?;
    pos.play_unchecked(m);
    Some(Puzzle {
        pos,
        themes: themes.split_whitespace().map(str::to_string).collect(),
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct ThemeScore {
    pub theme: &'static str,
    pub tagged: usize,
    /// Share of tagged puzzles where the detector sees the theme.
    pub detected: f64,
    /// Share of untagged puzzles where it claims the theme anyway.
    pub claimed_untagged: f64,
}

pub fn score(puzzles: &[Puzzle], theme: Theme) -> ThemeScore {
    let tag = theme.tag();
    let (mut tagged, mut found, mut untagged, mut claimed) = (0, 0, 0, 0);
    for p in puzzles {
        let present = theme.present(&p.pos);
        if p.themes.iter().any(|t| t == tag) {
            tagged += 1;
            found += usize::from(present);
        } else {
            untagged += 1;
            claimed += usize::from(present);
        }
    }
    ThemeScore {
        theme: tag,
        tagged,
        detected: found as f64 / tagged.max(1) as f64,
        claimed_untagged: claimed as f64 / untagged.max(1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_played_to_the_solvers_turn() {
        let csv = "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags\n\
                   00sHx,q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17,e8d7 a2e6 d7d8 f7f8,1760,80,83,72,mate mateIn2 middlegame short,https://lichess.org/yyznGmXs/black#34,\n\
                   bad,row";
        let puzzles = parse_csv(csv);
        assert_eq!(puzzles.len(), 1);
        assert_eq!(puzzles[0].pos.turn(), shakmaty::Color::White);
        let s = score(&puzzles, Theme::MateIn2);
        assert_eq!((s.tagged, s.detected), (1, 1.0));
    }
}
