// A persona's Lichess opponent signs in with Lichess and sees what it
// remembers of them: the lobby offers the sign-in, Lichess (a fake that
// approves at once) sends the browser back, the page keeps the club token
// and shows the memories, and the history links the game on Lichess. Run
// against a `kibitz serve` whose Viktor played Ann on the fake
// ($KIBITZ_URL, $KIBITZ_LICHESS_GAME_URL); tests/web.rs sets both up. A
// sign-in link sent to someone else signs nobody in.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { ARTIFACTS, BASE, launch } from "../e2e/browser.mjs";

test("a Lichess opponent signs in with Lichess", { timeout: 60_000 }, async () => {
  const gameUrl = process.env.KIBITZ_LICHESS_GAME_URL;
  assert.ok(gameUrl, "KIBITZ_LICHESS_GAME_URL names the game on the fake Lichess");
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  try {
    await page.goto(BASE);
    await page.getByRole("link", { name: "Sign in with Lichess" }).click();
    await page.waitForURL(/#\/memories$/, { timeout: 20_000 });
    assert.ok(!page.url().includes("signed-in"), "the address with the token in it was replaced");
    await page.getByText(/bees/).first().waitFor({ timeout: 20_000 });
    assert.equal(await page.locator("#who").textContent(), "Ann");
    await page.screenshot({ path: `${ARTIFACTS}/14-lichess-memories.png` });
    await page.goto(`${BASE}/#/history`);
    const link = page.getByRole("link", { name: "on Lichess" });
    await link.waitFor();
    assert.equal(await link.getAttribute("href"), gameUrl);
    await page.screenshot({ path: `${ARTIFACTS}/15-lichess-history.png` });
    // A link carrying Ann's token, opened in someone else's browser, signs nobody in.
    const ann = await page.evaluate(() => JSON.parse(localStorage.getItem("kibitz.player")));
    const other = await (await browser.newContext()).newPage();
    await other.goto(`${BASE}/#/signed-in/${ann.id}/${ann.token}`);
    await other.getByText("That sign-in was not started here").waitFor();
    assert.equal(await other.evaluate(() => localStorage.getItem("kibitz.player")), null, "nobody is signed in");
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/failure-lichess.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});
