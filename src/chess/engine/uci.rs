//! Typed parsing of the UCI lines an engine prints. Bound scores
//! (lowerbound/upperbound) are not exact and are dropped.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    /// This score of a line, for the side to move, as the opponent's score
    /// once the line's first move is played: what an evaluation of the
    /// position after that move would report. Mate distances count the
    /// mating side's moves, so a mate in n becomes mated in n - 1 (mate 0:
    /// mated now) and being mated in n becomes mating in n.
    pub fn after_move(&self) -> Score {
        match *self {
            Score::Cp(cp) => Score::Cp(-cp),
            Score::Mate(n) if n > 0 => Score::Mate(-(n - 1)),
            Score::Mate(n) => Score::Mate(-n),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineLine {
    IdName(String),
    UciOk,
    ReadyOk,
    SpinOption {
        name: String,
        default: i64,
        min: i64,
        max: i64,
    },
    Info {
        depth: Option<u32>,
        multipv: Option<u32>,
        /// Nodes searched so far.
        nodes: Option<u64>,
        score: Option<Score>,
        pv: Vec<String>,
    },
    BestMove {
        mv: Option<String>,
    },
    Other,
}

pub fn parse_line(line: &str) -> EngineLine {
    let mut words = line.split_whitespace();
    match words.next() {
        Some("id") if words.next() == Some("name") => EngineLine::IdName(words.collect::<Vec<_>>().join(" ")),
        Some("uciok") => EngineLine::UciOk,
        Some("readyok") => EngineLine::ReadyOk,
        Some("option") => parse_option(line).unwrap_or(EngineLine::Other),
        Some("info") => parse_info(words),
        Some("bestmove") => EngineLine::BestMove {
            mv: words
                .next()
                .filter(|m| *m != "(none)" && *m != "0000")
                .map(str::to_string),
        },
        _ => EngineLine::Other,
    }
}

fn parse_option(line: &str) -> Option<EngineLine> {
    let rest = line.strip_prefix("option name ")?;
    let (name, spec) = rest.split_once(" type ")?;
    let mut words = spec.split_whitespace();
    if words.next()? != "spin" {
        return None;
    }
    let (mut default, mut min, mut max) = (None, None, None);
    while let Some(key) = words.next() {
        let value = words.next()?.parse().ok()?;
        match key {
            "default" => default = Some(value),
            "min" => min = Some(value),
            "max" => max = Some(value),
            _ => {}
        }
    }
    Some(EngineLine::SpinOption {
        name: name.trim().to_string(),
        default: default?,
        min: min?,
        max: max?,
    })
}

fn parse_info<'a>(mut words: impl Iterator<Item = &'a str>) -> EngineLine {
    let (mut depth, mut multipv, mut score, mut pv) = (None, None, None, Vec::new());
    let mut nodes = None;
    let mut bound = false;
    while let Some(key) = words.next() {
        match key {
            "depth" => depth = words.next().and_then(|v| v.parse().ok()),
            "multipv" => multipv = words.next().and_then(|v| v.parse().ok()),
            "nodes" => nodes = words.next().and_then(|v| v.parse().ok()),
            "score" => {
                let kind = words.next();
                let value = words.next().and_then(|v| v.parse().ok());
                score = match (kind, value) {
                    (Some("cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some("mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                };
            }
            "lowerbound" | "upperbound" => bound = true,
            "pv" => {
                pv = words.map(str::to_string).collect();
                break;
            }
            _ => {}
        }
    }
    EngineLine::Info {
        depth,
        multipv,
        nodes,
        score: if bound { None } else { score },
        pv,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lines_score_turns_into_the_opponents_after_its_move() {
        assert_eq!(Score::Cp(35).after_move(), Score::Cp(-35));
        assert_eq!(Score::Cp(-120).after_move(), Score::Cp(120));
        assert_eq!(Score::Mate(1).after_move(), Score::Mate(0));
        assert_eq!(Score::Mate(3).after_move(), Score::Mate(-2));
        assert_eq!(Score::Mate(-2).after_move(), Score::Mate(2));
    }

    #[test]
    fn parses_the_lines_stockfish_prints() {
        assert_eq!(
            parse_line("id name Stockfish 15.1"),
            EngineLine::IdName("Stockfish 15.1".into())
        );
        assert_eq!(parse_line("uciok"), EngineLine::UciOk);
        assert_eq!(
            parse_line("option name UCI_Elo type spin default 1320 min 1320 max 3190"),
            EngineLine::SpinOption {
                name: "UCI_Elo".into(),
                default: 1320,
                min: 1320,
                max: 3190
            }
        );
        assert_eq!(
            parse_line("option name Ponder type check default false"),
            EngineLine::Other
        );
        assert_eq!(
            parse_line("bestmove e2e4 ponder e7e5"),
            EngineLine::BestMove {
                mv: Some("e2e4".into())
            }
        );
        assert_eq!(parse_line("bestmove (none)"), EngineLine::BestMove { mv: None });
    }

    #[test]
    fn info_scores_drop_bounds_and_keep_mates() {
        let EngineLine::Info {
            score,
            pv,
            depth,
            nodes,
            ..
        } = parse_line("info depth 12 seldepth 18 multipv 1 score mate -3 nodes 1 pv e2e4 e7e5")
        else {
            panic!("not info")
        };
        assert_eq!((score, depth, nodes), (Some(Score::Mate(-3)), Some(12), Some(1)));
        assert_eq!(pv, vec!["e2e4", "e7e5"]);
        let EngineLine::Info { score, .. } = parse_line("info depth 5 score cp 31 lowerbound nodes 9") else {
            panic!("not info")
        };
        assert_eq!(score, None);
    }
}
