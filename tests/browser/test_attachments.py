"""Images with a prompt, in the panel (issue 15): bob picks one image and pastes another into the
prompt box, sees both as thumbnails (a PDF is refused with a clear message), attaches a repository
file and sends; carol, a viewer, sees the thumbnails in the transcript and enlarges one; the model
got both images and the file."""

import base64
import io

from PIL import Image
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply

from .panel import (
    attach,
    axe_violations,
    fits_at_every_look,
    layout_problems,
    problems_at_every_look,
    prompt_box_problems,
    show_room,
)


def png(color) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (120, 80), color).save(out, format="PNG")
    return out.getvalue()


def paste_image(page, data: bytes, name: str) -> None:
    """Paste an image file into the prompt box, as a browser does for a copied screenshot."""
    page.locator(".jp-CopilotRoom-input").evaluate(
        """(box, [b64, name]) => {
            const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
            const data = new DataTransfer();
            data.items.add(new File([bytes], name, {type: 'image/png'}));
            box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
        }""",
        [base64.b64encode(data).decode(), name],
    )


def test_a_member_sends_two_images_and_a_viewer_enlarges_one(
    lab, open_lab, model, screenshot, tmp_path
):
    model.script = lambda request: Reply("Two rectangles, red and blue.")
    bob, carol = (show_room(open_lab(user)) for user in ("bob", "carol"))
    red, blue = png((220, 30, 30)), png((30, 60, 220))
    (tmp_path / "red.png").write_bytes(red)
    (tmp_path / "notes.pdf").write_bytes(b"%PDF-1.4")

    bob.locator("input[type=file][aria-label='Images to attach']").set_input_files(
        [tmp_path / "red.png", tmp_path / "notes.pdf"]
    )
    expect(bob.locator(".jp-CopilotRoom-draftAttachments [role=alert]")).to_contain_text(
        "notes.pdf is not a PNG, JPEG, GIF or WebP image"
    )
    paste_image(bob, blue, "blue.png")
    thumbs = bob.locator(".jp-CopilotRoom-draftAttachments img.jp-CopilotRoom-thumb")
    expect(thumbs).to_have_count(2)
    expect(bob.locator(".jp-CopilotRoom-attachment[data-uploading='true']")).to_have_count(0)
    (lab.root / "docs").mkdir(exist_ok=True)
    (lab.root / "docs" / "plan.md").write_text("the plan\n")
    attach(bob, "Repository file…")
    bob.locator(".jp-Dialog input").fill("docs/plan.md")
    bob.locator(".jp-Dialog").get_by_role("button", name="Attach").click()
    expect(bob.locator(".jp-CopilotRoom-draftAttachments")).to_contain_text("File plan.md")
    bob.locator(".jp-CopilotRoom-input").fill("what are these?")
    problems = problems_at_every_look(
        bob,
        screenshot,
        "attachments-draft-",
        lambda page: (
            prompt_box_problems(page) + layout_problems(page, ".jp-CopilotRoom-draftAttachments")
        ),
    )
    problems += axe_violations(bob, ".jp-CopilotRoom-promptBox")
    bob.locator(".jp-CopilotRoom-input").press("Enter")
    expect(bob.locator(".jp-CopilotRoom-input")).to_have_value("", timeout=15_000)
    expect(thumbs).to_have_count(0)  # the box is empty for the next prompt

    shown = carol.locator(".jp-CopilotRoom-prompt img.jp-CopilotRoom-thumb")
    expect(shown).to_have_count(2, timeout=30_000)
    expect(carol.locator(".jp-CopilotRoom-reply").last).to_contain_text("red and blue")
    problems += fits_at_every_look(
        carol, screenshot, "attachments-transcript-", ".jp-CopilotRoom-prompt"
    )
    problems += axe_violations(carol, ".jp-CopilotRoom-prompt")
    carol.get_by_role("button", name="Enlarge blue.png").click()
    enlarged = carol.locator(".jp-Dialog img.jp-CopilotRoom-enlarged")
    expect(enlarged).to_be_visible()
    assert enlarged.evaluate("img => img.naturalWidth") == 120
    screenshot(carol.locator(".jp-Dialog-content"), "attachments-enlarged")
    carol.get_by_role("button", name="Close").click()
    assert not problems, problems

    [request] = [r for r in model.requests if "what are these?" in r.last_user]
    urls = [
        part["image_url"]["url"]
        for part in request.messages[-1]["content"]
        if part.get("type") == "image_url"
    ]
    assert urls == [
        "data:image/png;base64," + base64.b64encode(data).decode() for data in (red, blue)
    ]
    assert f"{(lab.root / 'docs' / 'plan.md').resolve()} (2 lines)" in request.last_user
