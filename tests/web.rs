//! The club room in a real browser: `web/e2e/` (node's test runner,
//! playwright-core driving Debian's Chromium) against a real `kibitz serve`,
//! and `web/e2e-model/` against one whose model streams its words slowly.
//! `make test` builds the page and installs Chromium first
//! (`scripts/web-setup.sh`); screenshots land in web/test-artifacts.

mod common;

use std::process::Command;
use std::time::Duration;

use common::fake_llm::{Behaviour, FakeLlm};
use common::{Server, repo};
use serde_json::json;

/// Runs node's test runner on `dir` of web/ against `server`; its report.
async fn browser_tests(dir: &str, server: Server, env: &[(&str, &str)]) {
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
    node.args(["--test", dir])
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
    browser_tests("e2e-model/", server, &[("KIBITZ_SAID", said)]).await;
}
