// The persona's words grow on the page as the model writes them: run
// against a `kibitz serve` whose model streams its answer slowly
// ($KIBITZ_URL; tests/web.rs starts both). The draft line shows the words
// so far and gives way to the checked message.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { ARTIFACTS, BASE, launch, newMatch, signIn } from "../e2e/browser.mjs";

const SAID = process.env.KIBITZ_SAID;

test("the words grow as the model writes them", { timeout: 60_000 }, async () => {
  assert.ok(SAID, "KIBITZ_SAID holds what the model will say");
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  // Every text the draft line showed, in order.
  await page.addInitScript(() => {
    window.__drafts = [];
    new MutationObserver(() => {
      const text = document.querySelector(".msg.draft")?.textContent;
      if (text && text !== window.__drafts.at(-1)) window.__drafts.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  try {
    await signIn(page, "Robin");
    const matchId = await newMatch(page, "viktor");
    await page.goto(`${BASE}/#/play/${matchId}`);
    // The greeting comes first, whole.
    await page.locator(".msg.persona:not(.draft)").first().waitFor({ timeout: 20_000 });
    await page.evaluate(() => (window.__drafts = []));

    await page.getByLabel("Chat message").fill("I keep bees on my roof");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".msg.draft").waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/8-draft.png` });
    await page.waitForFunction(() => document.querySelectorAll(".msg.persona:not(.draft)").length >= 2, null,
      { timeout: 20_000 });
    assert.equal(await page.locator(".msg.draft").count(), 0, "the draft gave way to the message");
    const replies = await page.locator(".msg.persona").allTextContents();
    assert.ok(replies.at(-1).includes(SAID), `the message is said whole: ${replies.at(-1)}`);
    const drafts = await page.evaluate(() => window.__drafts);
    assert.ok(drafts.length >= 3, `the line grew: ${drafts.join(" | ")}`);
    for (let i = 1; i < drafts.length; i++) {
      assert.ok(drafts[i].replace(/…$/, "").startsWith(drafts[i - 1].replace(/…$/, "")), `grew, never rewrote: ${drafts}`);
    }
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/failure-draft.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});
