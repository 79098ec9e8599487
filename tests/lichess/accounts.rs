//! Accounts: signing in with Lichess (across nodes, and an opponent who
//! sees their memories), and whose each configured token is.

use super::*;

/// Follows one redirect by hand, with `cookie` if any: the `Location` of a
/// 303, and the cookie it sets.
async fn redirected(http: &reqwest::Client, url: &str, cookie: Option<&str>) -> (String, Option<String>) {
    let request = http.get(url);
    let request = match cookie {
        Some(c) => request.header("cookie", c),
        None => request,
    };
    let response = request.send().await.unwrap();
    let set = response
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string());
    let location = response
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    let status = response.status().as_u16();
    assert_eq!(status, 303, "{url} redirects: {:?}", response.text().await);
    (location.unwrap(), set)
}

/// The whole sign-in with Lichess, as a browser makes it: the club (which
/// sets its cookie), Lichess's consent page (the fake approves at once),
/// back to the club with the cookie; the page's address it ends on. The
/// same return without the cookie (another browser) is refused first.
async fn sign_in(server: &Server) -> String {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let (to_lichess, cookie) = redirected(&http, &format!("{}/api/auth/lichess", server.base), None).await;
    let cookie = cookie.expect("the sign-in's cookie");
    let (back, _) = redirected(&http, &to_lichess, None).await;
    assert!(
        back.starts_with(&format!("{}/api/auth/lichess/callback?", server.base)),
        "{back}"
    );
    let elsewhere = http.get(&back).send().await.unwrap();
    assert_eq!(
        elsewhere.status().as_u16(),
        400,
        "the return opened in another browser is refused"
    );
    redirected(&http, &back, Some(&cookie)).await.0
}

#[tokio::test]
async fn a_sign_in_begun_on_one_node_is_finished_by_another() {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    // Two nodes of one club, behind one public address.
    let public = [("KIBITZ_PUBLIC_URL", "http://club.example")];
    let (first, _d1) = bot_server(&fake, &public).await;
    let (second, _d2) = bot_server(&fake, &public).await;
    fake.sign_in_as("ann");
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let (to_lichess, cookie) = redirected(&http, &format!("{}/api/auth/lichess", first.base), None).await;
    let (back, _) = redirected(&http, &to_lichess, None).await;
    let on_second = back.replacen("http://club.example", &second.base, 1);
    assert_ne!(on_second, back, "{back}");
    // The second node traded the code with the verifier the browser
    // carried (the fake checks it against the challenge the first sent):
    // Ann, whom no persona of this node has played, is told so.
    let (page, _) = redirected(&http, &on_second, cookie.as_deref()).await;
    assert_eq!(page, "/#/lichess/unknown");
    no_violations(&fake);
}

#[tokio::test]
async fn a_lichess_opponent_signs_in_with_lichess_and_sees_their_memories() {
    let fake = FakeLichess::start().await;
    fake.add_human("ann", "Ann", 1500);
    fake.add_human("eve", "Eve", 1700);
    let (server, _dir) = bot_server(&fake, &[]).await;
    listening(&fake).await;
    let game = fake.ann_tells_of_her_bees_and_resigns().await;
    let game2 = accepted_game(&fake, "ann", "viktor-bot", 600, 5, false, "white").await;

    fake.sign_in_as("ann");
    let page = sign_in(&server).await;
    let rest = page
        .strip_prefix("/#/signed-in/")
        .unwrap_or_else(|| panic!("signed in: {page}"));
    let (player, token) = rest.split_once('/').unwrap();
    let (status, memories) = server.get_as(&format!("/api/players/{player}/memories"), token).await;
    assert_eq!(status, 200, "{memories}");
    let texts: Vec<&str> = memories
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("bees")),
        "Ann sees what Viktor remembers: {texts:?}"
    );
    let (_, matches) = server.get_as(&format!("/api/players/{player}/matches"), token).await;
    let links: Vec<&str> = matches
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["lichess_url"].as_str())
        .collect();
    assert_eq!(links.len(), 2, "{matches}");
    assert!(links.contains(&format!("{}/{game}", fake.base).as_str()), "{links:?}");
    // The club's page shows a Lichess game; it is played on Lichess.
    let live = matches
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["status"] == "active")
        .unwrap();
    let (status, refused) = server
        .send_as(
            reqwest::Method::POST,
            &format!("/api/matches/{}/chat", live["id"].as_str().unwrap()),
            Some(token),
            Some(serde_json::json!({"text": "hi"})),
        )
        .await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (409, Some("played_on_lichess")),
        "{refused}"
    );
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.method == "DELETE" && r.path == "/api/token" && r.status == 204),
        "the sign-in's Lichess token was let go"
    );

    // Someone the personas never played is told so; a forged return is refused.
    fake.sign_in_as("eve");
    assert_eq!(sign_in(&server).await, "/#/lichess/unknown");
    let forged = reqwest::get(format!("{}/api/auth/lichess/callback?code=x&state=forged", server.base))
        .await
        .unwrap();
    assert_eq!(forged.status().as_u16(), 400);
    assert_eq!(fake.game(&game2).status, "started");
    no_violations(&fake);
}

#[tokio::test]
async fn kibitz_lichess_check_says_whose_each_token_is() {
    let fake = FakeLichess::start().await;
    fake.add_bot(TOKEN, "viktor-bot", "Viktor-Bot");
    fake.add_human("ann", "Ann", 1500);
    fake.with(|w| w.tokens.insert("lip_ann".into(), "ann".into()));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("kibitz.toml");
    let accounts = "[[lichess.accounts]]\npersona = \"viktor\"\ntoken_env = \"T_VIKTOR\"\n\n[[lichess.accounts]]\npersona = \"pip\"\ntoken_env = \"T_PIP\"\n";
    std::fs::write(&config, accounts).unwrap();
    let base = fake.base.clone();
    let config_path = config.clone();
    let out = tokio::task::spawn_blocking(move || {
        common::kibitz_in(dir.path())
            .args(["lichess", "--check"])
            .env("KIBITZ_CONFIG", &config_path)
            .env("KIBITZ_LICHESS_URL", &base)
            .env("T_VIKTOR", TOKEN)
            .env("T_PIP", "lip_ann")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("viktor: plays as BOT Viktor-Bot"), "{stdout}");
    assert!(stdout.contains("pip: Ann is not a BOT account yet"), "{stdout}");
    assert!(!out.status.success(), "one account is not ready: {stdout}");
    assert!(
        !stdout.contains(TOKEN) && !String::from_utf8_lossy(&out.stderr).contains(TOKEN),
        "the token is never printed"
    );
}
