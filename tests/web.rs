//! The club room in a real browser: `web/e2e/` (node's test runner,
//! playwright-core driving Debian's Chromium) against a real `kibitz serve`.
//! `make test` builds the page and installs Chromium first
//! (`scripts/web-setup.sh`); screenshots land in web/test-artifacts.

mod common;

use std::process::Command;

use common::{Server, repo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_club_room_works_in_a_browser() {
    let web = repo().join("web");
    assert!(
        web.join("node_modules/playwright-core").exists() && web.join("dist/index.html").exists(),
        "the page is not built: run `make web` (or `make test`, which does)"
    );
    assert!(
        std::path::Path::new("/usr/bin/chromium").exists(),
        "no Chromium: `make test` installs Debian's (scripts/web-setup.sh)"
    );
    let server = Server::start().await;
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .args(["--test", "e2e/"])
            .current_dir(&web)
            .env("KIBITZ_URL", &server.base)
            .output()
            .map(|o| (o, server))
    })
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
