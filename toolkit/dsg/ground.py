"""Asking a VLM: a local model (batched `generate`, multi-turn `chat`) or a chat server through any LLM
backend (images as data URLs), behind one interface, with a persistent grounding cache.

Cache key: (image sha256, question, backend). A rerun over the same images and questions asks nothing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from toolkit.core.records import RecordWriter, make_record, read_records
from toolkit.core.vlm import Turn, conversation_messages, image_data_url, load_image
from toolkit.dsg.prompts import SYSTEM

CACHE = "dsg.cache"
MAX_TOKENS = 300


def file_sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class LocalAsker:
    """A local VLM directory: grounding questions go out in batches (one `generate` per chunk)."""

    batches = True

    def __init__(self, vlm, name: str, batch_size: int = 32, max_new_tokens: int = 8):
        self.vlm, self.name, self.batch_size, self.max_new_tokens = vlm, name, batch_size, max_new_tokens
        self.calls = 0
        self._images: dict[str, Any] = {}

    def image(self, path: str, where: str = ""):
        if path not in self._images:
            self._images[path] = load_image(path, where=where)
        return self._images[path]

    def ask(self, pairs: list[tuple[str, str]]) -> list[str]:
        out: list[str] = []
        for i in range(0, len(pairs), self.batch_size):
            chunk = pairs[i:i + self.batch_size]
            self.calls += 1
            out += self.vlm.generate([self.image(p) for p, _ in chunk], [q for _, q in chunk],
                                     max_new_tokens=self.max_new_tokens)
        return out

    def converse(self, path: str, turns: list[Turn], max_new_tokens: int = 16) -> str:
        self.calls += 1
        return self.vlm.chat([self.image(path)], [turns], max_new_tokens=max_new_tokens)[0]


class GrounderAsker:
    """The CNN grounder (toolkit.dsg.cnn): one-word answers to grounding and direct questions, in batches, each
    distinct image through the CNN once per batch. It reads one question, not a conversation: a multi-turn
    conversation is answered from its last question (a composition question's scenario is read as tokens)."""

    batches = True

    def __init__(self, grounder, name: str, batch_size: int = 256):
        self.grounder, self.name, self.batch_size = grounder, name, batch_size
        self.calls = 0
        self._inks: dict[str, Any] = {}

    def ink(self, path: str, where: str = ""):
        from toolkit.dsg.cnn import ink_map

        if path not in self._inks:
            self._inks[path] = ink_map(load_image(path, where=where))
        return self._inks[path]

    def ask(self, pairs: list[tuple[str, str]]) -> list[str]:
        out: list[str] = []
        for i in range(0, len(pairs), self.batch_size):
            chunk = pairs[i:i + self.batch_size]
            paths = list(dict.fromkeys(p for p, _ in chunk))
            where = {p: j for j, p in enumerate(paths)}
            self.calls += 1
            out += self.grounder.answer([self.ink(p) for p in paths], [where[p] for p, _ in chunk],
                                        [q for _, q in chunk])
        return out

    def converse(self, path: str, turns: list[Turn], max_new_tokens: int = 16) -> str:
        return self.ask([(path, turns[-1][0])])[0]


class ChatAsker:
    """Any LLM backend URI (openai:MODEL@URL, replay:, py:): one chat call per question, image as a data URL."""

    batches = False

    def __init__(self, llm):
        # the cache key names the answering backend, not its --record wrapper
        self.llm, self.name = llm, getattr(llm, "inner", None) and llm.inner.name or llm.name
        self.calls = 0
        self._urls: dict[str, str] = {}

    def url(self, path: str, where: str = "") -> str:
        if path not in self._urls:
            self._urls[path] = image_data_url(path, where=where)
        return self._urls[path]

    def ask(self, pairs: list[tuple[str, str]]) -> list[str]:
        return [self.converse(p, [(q, None)]) for p, q in pairs]

    def converse(self, path: str, turns: list[Turn], max_new_tokens: int = MAX_TOKENS) -> str:
        self.calls += 1
        messages = conversation_messages(self.url(path), turns, system=SYSTEM)
        return self.llm.complete(messages, n=1, temperature=0.0, max_tokens=max_new_tokens).text


class GroundingCache:
    """(image sha256, question, backend) -> raw answer, persisted as JSONL `dsg.cache` records."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path else None
        self.answers: dict[str, str] = {}
        self._sha: dict[str, str] = {}
        if self.path is not None and self.path.is_file():
            for r in read_records(self.path, types=[CACHE], required=("key", "raw")):
                self.answers[r["key"]] = r["raw"]
        self._writer = RecordWriter(self.path, append=True) if self.path is not None else None

    def key(self, image: str, question: str, backend: str) -> str:
        if image not in self._sha:
            self._sha[image] = file_sha256(image)
        blob = "\n".join((self._sha[image], question, backend))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]

    def get(self, key: str) -> str | None:
        return self.answers.get(key)

    def put(self, key: str, raw: str, question: str) -> None:
        self.answers[key] = raw
        if self._writer is not None:
            self._writer.write(make_record(CACHE, key=key, question=question, raw=raw))

    def converse(self, asker, image: str, turns: list[Turn], **kwargs) -> str:
        """A (multi-turn) question through the cache: the key covers every turn of the conversation."""
        import json

        question = json.dumps(turns, ensure_ascii=False)
        key = self.key(image, question, asker.name)
        raw = self.get(key)
        if raw is None:
            raw = asker.converse(image, turns, **kwargs)
            self.put(key, raw, turns[-1][0])
        return raw

    def ask_all(self, asker, pairs: list[tuple[str, str]]) -> list[str]:
        """Single-turn questions through the cache, the misses asked in one batched call."""
        import json

        keys = [self.key(img, json.dumps([(q, None)], ensure_ascii=False), asker.name) for img, q in pairs]
        todo = [i for i, k in enumerate(keys) if self.get(k) is None]
        for i, raw in zip(todo, asker.ask([pairs[i] for i in todo]), strict=True):
            self.put(keys[i], raw, pairs[i][1])
        return [self.get(k) or "" for k in keys]

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
