//! The club room in a real browser: `web/e2e/` (node's test runner,
//! playwright-core driving Debian's Chromium) against a real `kibitz serve`,
//! and `web/e2e-setups/` against servers set up otherwise: a model that
//! streams its words slowly, registration by invite, a character card
//! imported while it serves.
//! `make test` builds the page and installs Chromium first
//! (`scripts/web-setup.sh`); screenshots land in web/test-artifacts.

mod common;

use std::process::Command;
use std::time::Duration;

use common::fake_llm::{Behaviour, FakeLlm};
use common::lichess::FakeLichess;
use common::{Server, cards, repo};
use serde_json::json;

/// Runs node's test runner on `tests` (a folder or file of web/) against
/// `server`; its report.
async fn browser_tests(tests: &str, server: Server, env: &[(&str, &str)]) {
    let web = repo().join("web");
    assert!(
        web.join("node_modules/playwright-core").exists() && web.join("dist/index.html").exists(),
        "the page is not built: run `make web` (or `make test`, which does)"
    );
    assert!(
        std::path::Path::new("/usr/bin/chromium").exists(),
        "no Chromium: `make test` installs Debian's (scripts/web-setup.sh)"
    );
    let mut node = Command::new("node");
    node.args(["--test", tests])
        .current_dir(&web)
        .env("KIBITZ_URL", &server.base);
    node.envs(env.iter().copied());
    let out = tokio::task::spawn_blocking(move || node.output().map(|o| (o, server)))
        .await
        .unwrap()
        .expect("node runs");
    let (out, _server) = out;
    let report = String::from_utf8_lossy(&out.stdout);
    println!("{report}");
    assert!(
        out.status.success(),
        "browser tests failed:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("# fail 0") && !report.contains("# pass 0"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_club_room_works_in_a_browser() {
    browser_tests("e2e/", Server::start().await, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_the_words_grow_as_the_model_writes_them() {
    let said = "Bees on your roof? Then mind they do not sting your rooks.";
    let answer = json!({"thinking": "tease", "actions": [
        {"action": "send_message", "content": said, "tone": "playful"}, {"action": "stop"}]});
    // Six characters every 40 ms: the message takes about a second to write.
    let fake = FakeLlm::openai(vec![Behaviour::Streamed {
        answer: answer.to_string(),
        every: Duration::from_millis(40),
    }])
    .await;
    let server = Server::start_with(&[("KIBITZ_LLM_URL", &fake.url)]).await;
    browser_tests("e2e-setups/drafts.test.mjs", server, &[("KIBITZ_SAID", said)]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_asks_for_an_invite_where_the_club_wants_one() {
    let admin = "admin-token-for-the-invite-page";
    let server = Server::start_with(&[("KIBITZ_REGISTRATION", "invite"), ("KIBITZ_ADMIN_TOKEN", admin)]).await;
    let (status, invite) = server
        .send_as(reqwest::Method::POST, "/api/admin/invites", Some(admin), None)
        .await;
    assert_eq!(status, 201, "{invite}");
    let code = invite["code"].as_str().unwrap().to_string();
    browser_tests("e2e-setups/invite.test.mjs", server, &[("KIBITZ_INVITE", &code)]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_imported_while_serving_shows_its_portrait_and_faces() {
    let admin = "admin-token-for-the-card-page";
    let personas = cards::personas_copy();
    let dir = personas.path().to_string_lossy().to_string();
    let server = Server::start_with(&[("KIBITZ_PERSONAS_DIR", &dir), ("KIBITZ_ADMIN_TOKEN", admin)]).await;
    let (status, out) = cards::import_card(&server, admin, "", cards::captain_v3_png()).await;
    assert_eq!(status, 201, "{out}");
    browser_tests("e2e-setups/card.test.mjs", server, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lichess_opponent_signs_in_with_lichess_on_the_page() {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    let (server, _dir) = fake.viktor_server(&[], "").await;
    fake.wait_for(60, "the bot's event stream", |w| !w.event_streams.is_empty())
        .await;
    let game = fake.ann_tells_of_her_bees_and_resigns().await;
    fake.sign_in_as("ann");
    let game_url = format!("{}/{game}", fake.base);
    browser_tests(
        "e2e-setups/lichess.test.mjs",
        server,
        &[("KIBITZ_LICHESS_GAME_URL", &game_url)],
    )
    .await;
    assert!(fake.violations().is_empty(), "{:?}", fake.violations());
}
