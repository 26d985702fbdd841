"""Models for tests against a real `transformers serve` (tests/support/serve.py) whose answers are readable.

- build_answer_model: a tiny Llama constructed (not trained) so that its greedy reply is a valid answer of the
  shape a request asks for (a game move, a SQL query, a choice letter), or an unreadable one on request.
- servable_vlm: a shipped VLM directory made servable (a chat template rendering the prompt it was trained on).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tests.support.serve import CHAT_TEMPLATE

SERVING_MODULES = ("fastapi", "uvicorn")


def missing_serving() -> list[str]:
    return [m for m in SERVING_MODULES if importlib.util.find_spec(m) is None]


def build_answer_model(out: Path, answers: dict[str, str], default: str) -> Path:
    """A tiny Llama, constructed rather than trained, whose greedy reply is a fixed answer per kind of request.

    `answers` maps a cue (text a request contains, e.g. '"chosen_number"') to the answer for requests that
    contain it; the first cue found wins; requests without any get `default`. The chat template reads the
    request and ends the prompt with one cue token; the weights do the rest. Each answer is one token (a
    word-level vocabulary entry may hold spaces: input never matches it, decoding returns it whole).
    Attention and MLP outputs are zeroed, so each position's hidden state is its own token's embedding, one
    direction per cue token and one for every answer token; the output head maps cue i to answer i and any
    answer to </s>. So greedy decoding writes the answer of the request's kind, then stops.
    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from toolkit.core.tokenizers import SPECIALS, word_tokenizer

    said = [*answers.values(), default]
    cues = [f"<cue:{i}>" for i in range(len(said))]
    tok = word_tokenizer([*SPECIALS, *cues, *dict.fromkeys(said)])
    pick = "".join(f"{'{% if' if i == 0 else '{% elif'} {json.dumps(cue)} in text %}} {cues[i]}"
                   for i, cue in enumerate(answers))
    tok.chat_template = ("{% set text = messages | map(attribute='content') | map('string') | join(' ') %}"
                         + CHAT_TEMPLATE + pick + "{% else %} " + cues[-1] + "{% endif %}")
    config = LlamaConfig(vocab_size=len(tok), hidden_size=4 * len(said), intermediate_size=8, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=2 * len(said),
                         max_position_embeddings=16384, tie_word_embeddings=False, pad_token_id=tok.pad_token_id,
                         bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        model.model.norm.weight.fill_(1.0)
        embed, head = model.model.embed_tokens.weight, model.lm_head.weight
        embed.zero_()
        head.zero_()
        embed[:, -1] = 1.0  # any other token: only a prompt's last token matters, and that is a cue
        for i, (cue, answer) in enumerate(zip(cues, said, strict=True)):
            embed[tok.convert_tokens_to_ids(cue)] = torch.eye(config.hidden_size)[i]
            embed[tok.convert_tokens_to_ids(answer)] = torch.eye(config.hidden_size)[len(said) + i]
            head[tok.convert_tokens_to_ids(answer), i] = 10.0
            head[tok.eos_token_id, len(said) + i] = 10.0
    model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


# The LLaVA-1.5 prompt toolkit.core.vlm writes for a processor without a chat template ("USER: <image>\n...
# ASSISTANT:"), as a chat template: a chat server renders requests to a shipped VLM the way it was trained.
LLAVA_CHAT_TEMPLATE = (
    "{% for m in messages %}{% if m['role'] == 'user' %}{% if not loop.first %} {% endif %}USER: "
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] if c['type'] in ('image', 'image_url') %}<image>\n{% endfor %}"
    "{% for c in m['content'] if c['type'] == 'text' %}{{ c['text'] }}{% endfor %}{% endif %} ASSISTANT:"
    "{% else %} {% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for c in m['content'] if c['type'] == 'text' %}{{ c['text'] }}{% endfor %}{% endif %}{% endif %}"
    "{% endfor %}"
)


def servable_vlm(shipped: Path, out: Path) -> Path:
    """A copy of a shipped VLM directory with LLAVA_CHAT_TEMPLATE: `transformers serve` answers
    /v1/chat/completions for a processor only when it has a chat template (HTTP 400 otherwise)."""
    import shutil

    shutil.copytree(shipped, out)
    (out / "chat_template.jinja").write_text(LLAVA_CHAT_TEMPLATE)
    return out
