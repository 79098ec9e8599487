//! Tests of the board tools on hand-made positions.

use super::test_position as pos;
use super::*;

fn eval(fen: &str, mv: &str) -> MoveSafety {
    let call = ToolCall::Eval { moves: vec![mv.into()] };
    match analyze_board(&pos(fen), &call).unwrap() {
        ToolResult::Eval(mut e) => e.remove(0),
        other => panic!("{other:?}"),
    }
}

#[test]
fn calls_arrive_as_json_with_an_action() {
    let call: ToolCall = serde_json::from_str(r#"{"action":"eval","moves":["e2e4","Nf3"]}"#).unwrap();
    assert_eq!(
        call,
        ToolCall::Eval {
            moves: vec!["e2e4".into(), "Nf3".into()]
        }
    );
    assert!(serde_json::from_str::<ToolCall>(r#"{"action":"dance"}"#).is_err());
    let start = Chess::default();
    let bad = ToolCall::Eval {
        moves: vec!["e5".into()],
    };
    assert_eq!(analyze_board(&start, &bad), Err(ToolError::BadMove("e5".into())));
}

#[test]
fn perception_at_the_start() {
    let start = Chess::default();
    let ToolResult::LegalMoves(l) = analyze_board(&start, &ToolCall::LegalMoves).unwrap() else {
        panic!()
    };
    let count = |g: &[PieceMoves]| g.iter().map(|p| p.moves.len()).sum::<usize>();
    assert_eq!((count(&l.to_move), count(&l.opponent)), (20, 20));
    assert!(
        l.to_move
            .iter()
            .any(|g| g.piece == "knight" && g.square == "g1" && g.moves == ["Nf3", "Nh3"])
    );
    let ToolResult::Score(m) = analyze_board(&start, &ToolCall::Score).unwrap() else {
        panic!()
    };
    assert_eq!((m.white, m.black, m.balance), (39, 39, 0));
    let ToolResult::Captures(c) = analyze_board(&start, &ToolCall::Captures).unwrap() else {
        panic!()
    };
    assert!(c.is_empty());
}

#[test]
fn captures_name_the_victim() {
    // 1.e4 d5: exd5 is on offer.
    let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
    let ToolResult::Captures(c) = analyze_board(&p, &ToolCall::Captures).unwrap() else {
        panic!()
    };
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].san.as_str(), c[0].captured), ("exd5", "pawn"));
}

#[test]
fn a_hanging_queen_and_a_missed_mate() {
    let fen = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";
    let blunder = eval(fen, "Qd4");
    assert!(blunder.hangs && blunder.see == 9, "{blunder:?}");
    assert_eq!(blunder.attackers, ["rook"]);
    let mate = eval(fen, "Qxd8#");
    assert!(mate.mates && !mate.hangs, "{mate:?}");
    assert!(mate.to_text().contains("checkmate"));
}

#[test]
fn fools_mate_is_seen_coming() {
    // 1.f3 e5: 2.g4?? allows Qh4#.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2";
    assert_eq!(eval(fen, "g4").allows_mate_in_one.as_deref(), Some("Qh4#"));
    assert_eq!(eval(fen, "e4").allows_mate_in_one, None);
}

#[test]
fn projection_plays_a_line_for_both_sides() {
    let line = ["f3", "e7e5", "g4", "Qh4"].map(String::from).to_vec();
    let ToolResult::Project(p) = analyze_board(&Chess::default(), &ToolCall::Project { moves: line }).unwrap() else {
        panic!()
    };
    assert_eq!(p.line, ["f3", "e5", "g4", "Qh4#"]);
    assert!(p.checkmate && p.check && !p.stalemate);
    assert!(
        ToolResult::Project(p)
            .to_text()
            .starts_with("after f3 e5 g4 Qh4#: checkmate")
    );
    let long = ToolCall::Project {
        moves: vec!["e4".into(); 7],
    };
    assert_eq!(analyze_board(&Chess::default(), &long), Err(ToolError::TooLong));
    let illegal = ToolCall::Project {
        moves: vec!["e4".into(), "e4".into()],
    };
    assert_eq!(
        analyze_board(&Chess::default(), &illegal),
        Err(ToolError::BadMove("e4".into()))
    );
}

#[test]
fn the_last_move_is_classified_with_its_threats() {
    let mut game = Game::new(None).unwrap();
    for san in ["e4", "e5", "Bc4", "Nc6", "Qh5"] {
        let m = game.parse(san).unwrap();
        game.play(m);
    }
    let ToolResult::ClassifyLastMove(l) = analyze_game(&game, &ToolCall::ClassifyLastMove).unwrap() else {
        panic!()
    };
    assert_eq!(l.san, "Qh5");
    assert!(l.kinds.contains(&"piece move"));
    assert_eq!(l.threatens_mate.as_deref(), Some("Qxf7#"), "the scholar's mate threat");
    assert!(
        l.newly_attacked
            .iter()
            .any(|a| a.square == "e5" && a.piece == "pawn" && !a.hangs),
        "{l:?}"
    );
    let fresh = Game::new(None).unwrap();
    assert_eq!(
        analyze_game(&fresh, &ToolCall::ClassifyLastMove),
        Err(ToolError::NoLastMove)
    );
}

#[test]
fn threats_are_ranked_mate_first() {
    let mate = pos("3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1");
    let ToolResult::FindThreats(t) = analyze_board(&mate, &ToolCall::FindThreats).unwrap() else {
        panic!()
    };
    assert_eq!(t[0].san, "Qxd8#");
    assert!(t[0].tactics.contains(&"mate"), "{t:?}");
    let fork = pos("r3k3/8/8/3N4/8/8/8/4K3 w - - 0 1");
    let ToolResult::FindThreats(t) = analyze_board(&fork, &ToolCall::FindThreats).unwrap() else {
        panic!()
    };
    assert_eq!(t[0].san, "Nc7+");
    assert_eq!(t[0].tactics, ["fork", "check"]);
    let ToolResult::FindThreats(t) = analyze_board(&Chess::default(), &ToolCall::FindThreats).unwrap() else {
        panic!()
    };
    assert!(t.is_empty(), "{t:?}");
}

#[test]
fn compare_and_prophylaxis_see_the_back_rank() {
    // White mates at once; the queen may also blunder itself away.
    let p = pos("3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1");
    let call = ToolCall::Compare {
        moves: vec!["Qxd8#".into(), "Qd4".into(), "Qb3".into()],
    };
    let ToolResult::Compare(c) = analyze_board(&p, &call).unwrap() else {
        panic!()
    };
    let verdicts: Vec<&str> = c.iter().map(|c| c.verdict).collect();
    assert_eq!(verdicts, ["mates", "hangs", "sound"], "Qb3 still guards d1: {c:?}");
    assert!(ToolResult::Compare(c).to_text().starts_with("move | verdict"));
    let fools = pos("rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2");
    let call = ToolCall::Compare {
        moves: vec!["g4".into(), "e4".into()],
    };
    let ToolResult::Compare(c) = analyze_board(&fools, &call).unwrap() else {
        panic!()
    };
    assert_eq!(c[0].verdict, "loses to mate");
    assert_ne!(c[1].verdict, "loses to mate");
    // After 1.e4 e5 2.Bc4 Nc6 3.Qh5 Black must meet Qxf7#.
    let scholar = pos("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3");
    let ToolResult::Prophylaxis(pr) = analyze_board(&scholar, &ToolCall::Prophylaxis).unwrap() else {
        panic!()
    };
    assert_eq!(pr.threats[0].san, "Qxf7#");
    assert!(
        pr.defences[0].remaining < 1000,
        "the best answer stops the mate: {pr:?}"
    );
    assert!(
        ["Qe7", "Qf6", "g6", "Nh6"].contains(&pr.defences[0].san.as_str()),
        "{pr:?}"
    );
}

#[test]
fn deep_analysis_finds_the_sole_defender() {
    // The e2 rook alone defends the e4 knight, which the e8 rook attacks.
    let p = pos("4r1k1/8/8/8/4N3/8/4R3/6K1 w - - 0 1");
    let ToolResult::DeepAnalysis(roles) = analyze_board(&p, &ToolCall::DeepAnalysis).unwrap() else {
        panic!()
    };
    let rook = roles.iter().find(|r| r.square == "e2").unwrap();
    assert_eq!(rook.sole_defender_of, ["e4"]);
    let knight = roles.iter().find(|r| r.square == "e4").unwrap();
    assert_eq!((knight.attacked_by, knight.defended_by, knight.hangs), (1, 1, false));
    assert!(
        ToolResult::DeepAnalysis(roles)
            .to_text()
            .contains("SOLE DEFENDER of e4")
    );
}

#[test]
fn deep_threats_prepare_a_fork() {
    // A knight two jumps from a royal fork on c7.
    let p = pos("r3k3/8/8/8/8/2N5/8/4K3 w - - 0 1");
    let ToolResult::DeepThreats(c) = analyze_board(&p, &ToolCall::DeepThreats).unwrap() else {
        panic!()
    };
    assert!(c.iter().any(|c| c.follow_up.tactics.contains(&"fork")), "{c:?}");
    let ToolResult::DeepThreats(none) = analyze_board(&Chess::default(), &ToolCall::DeepThreats).unwrap() else {
        panic!()
    };
    assert!(none.is_empty(), "{none:?}");
}

#[test]
fn position_eval_counts_structure() {
    let ToolResult::PositionEval(start) = analyze_board(&Chess::default(), &ToolCall::PositionEval).unwrap() else {
        panic!()
    };
    assert_eq!((start.white.mobility, start.black.mobility), (20, 20));
    assert_eq!(
        (
            start.white.pawn_shield,
            start.white.doubled_pawns,
            start.white.passed_pawns
        ),
        (3, 0, 0)
    );
    assert_eq!(start.white.batteries, 0, "every slider is boxed in at the start");
    // White: doubled c-pawns, three isolated and (no black pawns) passed pawns;
    // queen and rook side by side on the first rank.
    let p = pos("6k1/8/8/8/P7/2P5/2P5/3QR1K1 w - - 0 1");
    let ToolResult::PositionEval(e) = analyze_board(&p, &ToolCall::PositionEval).unwrap() else {
        panic!()
    };
    assert_eq!(
        (e.white.doubled_pawns, e.white.isolated_pawns, e.white.passed_pawns),
        (1, 3, 3)
    );
    assert_eq!(e.white.batteries, 1);
    assert!(e.to_text().contains("batteries 1"));
}

#[test]
fn static_exchange_counts_recaptures_and_x_rays() {
    // A knight on d5 defended by the e4 pawn, attacked by the c6 pawn: N for P.
    let p = pos("4k3/8/2p5/3N4/4P3/8/8/4K3 b - - 0 1");
    assert_eq!(see(p.board(), Square::D5, Color::Black), 2);
    // A pawn on e5 attacked by a rook, defended by a rook behind a rook (x-ray): no gain.
    let p = pos("4k3/8/8/4p3/8/8/8/R3KR2 w - - 0 1");
    assert_eq!(see(p.board(), Square::E5, Color::White), 0, "nothing attacks e5");
    let p = pos("4r1k1/4r3/8/4p3/8/8/4R3/4RK2 w - - 0 1");
    assert_eq!(see(p.board(), Square::E5, Color::White), 0, "RxP, RxR, RxR, RxR: loses");
    let p = pos("6k1/4r3/8/4p3/8/8/4R3/4RK2 w - - 0 1");
    assert_eq!(
        see(p.board(), Square::E5, Color::White),
        1,
        "two rooks against one: wins the pawn"
    );
}

#[test]
fn a_rook_check_skewers_the_queen_behind_the_king() {
    // Ra2+ lines up the black king on a5 and the queen on a8 behind it.
    let before = pos("q7/8/8/k7/8/8/7R/4K3 w - - 0 1");
    let ra2 = before.legal_moves().into_iter().find(|m| m.to() == Square::A2).unwrap();
    assert!(themes::skewer_after(&before, ra2));
    assert!(themes::Theme::Skewer.present(&before));
    let ToolResult::FindThreats(t) = analyze_board(&before, &ToolCall::FindThreats).unwrap() else {
        panic!()
    };
    let ra2_threat = t.iter().find(|t| t.uci == "h2a2").expect("Ra2+ is a threat");
    assert!(ra2_threat.tactics.contains(&"skewer"), "{ra2_threat:?}");
    // After it, the position counts one skewer by White and no pin.
    let after = pos("q7/8/8/k7/8/8/R7/4K3 b - - 1 1");
    let ToolResult::PositionEval(e) = analyze_board(&after, &ToolCall::PositionEval).unwrap() else {
        panic!()
    };
    assert_eq!((e.white.skewers, e.white.pins), (1, 0));
    assert!(e.to_text().contains("skewers 1"));
    // A defended rook that can simply be taken skewers nothing.
    let taken = pos("q7/8/8/k7/8/1b6/R7/4K3 b - - 1 1");
    assert_eq!(themes::skewers(&taken, Color::White), 0);
}
