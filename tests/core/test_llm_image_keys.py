import hashlib
import json

from toolkit.core.llm.base import normalize_request, request_key


def _old_key(messages, n=1, temperature=0.0, max_tokens=256, stop=None):
    # the request format before image URLs were hashed: recordings made then must still be found
    request = {"messages": [{"role": m["role"], "content": m["content"]} for m in messages], "n": n,
               "temperature": round(float(temperature), 6), "max_tokens": max_tokens, "stop": stop}
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


def test_text_only_keys_are_unchanged():
    plain = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "what is 2+2?"}]
    parts = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    for messages in (plain, parts):
        assert request_key(normalize_request(messages, 1, 0.0, 256, None)) == _old_key(messages)


def test_image_data_urls_are_stored_as_short_hashes():
    url = "data:image/png;base64," + "QUJD" * 500
    messages = [{"role": "user", "content": [{"type": "text", "text": "what is it?"},
                                             {"type": "image_url", "image_url": {"url": url}}]}]
    request = normalize_request(messages, 1, 0.0, 64, None)
    stored = request["messages"][0]["content"][1]["image_url"]["url"]
    assert stored == "image:sha256:" + hashlib.sha256(url.encode()).hexdigest()[:16]
    assert "base64" not in json.dumps(request)
    assert messages[0]["content"][1]["image_url"]["url"] == url  # the caller's message is left alone
    other = [{"role": "user", "content": [{"type": "text", "text": "what is it?"},
                                          {"type": "image_url", "image_url": {"url": url + "QQ=="}}]}]
    assert request_key(request) != request_key(normalize_request(other, 1, 0.0, 64, None))
