"""`perceive`: images -> maps.netlist records, with the shipped PPM, another PPM directory, or a vision LLM."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator
from pathlib import Path

from toolkit.core.assets import asset_path, given_or_shipped
from toolkit.core.errors import InputError
from toolkit.core.records import BadLines, read_records

# the default is the shipped reader with the higher measured equivalence (assets/maps/README.md): the grid
# reader; the exemplar reader (assets/maps/ppm-exemplar) and the learned Swin + GPT-2 PPM (assets/maps/ppm) stay
DEFAULT_MODEL = asset_path("maps/ppm-grid")
# the exemplar reader claims a read (parsed: true) only at this confidence or above; chosen on validation
# circuits (assets/maps/README.md, "Uncertain reads"), not on the seeds its figures are measured on
MIN_CONFIDENCE = 0.2
PPM_PROMPT = "Convert the circuit diagram to SPICE code:"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def image_jobs(source: str, *, skip_bad: bool = False, bad: BadLines | None = None) -> list[tuple[str, Path, str]]:
    """(id, image path, where) for circuit records, one image, or a folder of images. A records file without a
    single maps.circuit (e.g. the questions file) is an error, not an empty run."""
    path = given_or_shipped(source) if source != "-" else Path(source)
    source = str(path) if source != "-" else source
    if source != "-" and path.suffix.lower() in IMAGE_SUFFIXES:
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        return [(path.stem, path, str(path))]
    if source != "-" and path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise InputError(f"{path}: no .png/.jpg images in this folder")
        return [(p.stem, p, str(p)) for p in files]
    base = Path.cwd() if source == "-" else path.parent
    name = "<stdin>" if source == "-" else source
    jobs, questions = [], 0
    for lineno, rec in enumerate(read_records(source, types=["maps.circuit", "maps.question"],
                                              required=["id", "image"], skip_bad=skip_bad, bad=bad), start=1):
        if rec["type"] == "maps.question":
            questions += 1
            continue
        jobs.append((rec["id"], base / rec["image"], f"{name}:{lineno}: field 'image'"))
    if not jobs:
        found = (f"only maps.question records ({questions})" if questions else
                 f"all {bad.count} line(s) bad; first: {bad.examples[0]}" if bad and bad.count else
                 "no maps.circuit records")
        raise InputError(f"{name}: {found}; perceive reads maps.circuit records (circuits.jsonl), an image or a "
                         f"folder of images")
    return jobs


def perceive_all(jobs: Iterable[tuple[str, Path, str]], *, model: Path | None = None,
                 llm: str | None = None, min_confidence: float | None = None) -> Iterator[dict]:
    """maps.netlist records; the model directory decides the reader: the grid reader (grid.safetensors), a
    learned PPM (ppm.json), an exemplar PPM (exemplars.npz) or any local vision-language model
    (AutoModelForImageTextToText). The grid and exemplar readers give each read a confidence; below
    `min_confidence` (default: the model's config, else the reader's own threshold) the record says
    `parsed: false` while keeping the netlist it read."""
    if llm:
        yield from _perceive_llm(jobs, llm)
        return
    directory = given_or_shipped(model) if model else DEFAULT_MODEL
    if not directory.is_dir():
        raise InputError(f"--model {directory}: no such directory")
    from toolkit.maps.grid_reader import is_grid_reader
    from toolkit.maps.ppm_model import is_learned

    if is_grid_reader(directory):
        from toolkit.core.extras import require

        require("ml", "torch")
        yield from _perceive_grid(jobs, directory, min_confidence)
    elif is_learned(directory):
        from toolkit.core.extras import require

        require("ml", "torch", "transformers")
        yield from _perceive_learned(jobs, directory)
    elif (directory / "exemplars.npz").is_file():
        yield from _perceive_exemplar(jobs, directory, min_confidence)
    else:
        yield from _perceive_vlm(jobs, directory)


def _netlist_record(cid: str, image: Path, text: str, parsed: bool, reader: str, directory: Path | None) -> dict:
    rec = {"type": "maps.netlist", "schema": 1, "id": cid, "image": str(image), "netlist": text,
           "parsed": parsed, "reader": reader}
    if directory is not None:
        rec["model"] = str(directory)
    return rec


def _perceive_exemplar(jobs, directory: Path, min_confidence: float | None) -> Iterator[dict]:
    from toolkit.maps.ppm import load_model

    yield from _perceive_with_confidence(jobs, directory, min_confidence, load_model, MIN_CONFIDENCE, "exemplar")


def _perceive_grid(jobs, directory: Path, min_confidence: float | None) -> Iterator[dict]:
    import torch

    from toolkit.maps.grid_reader import MIN_CONFIDENCE as GRID_MIN_CONFIDENCE
    from toolkit.maps.grid_reader import load_reader

    torch.set_num_threads(1)  # a few small crops per image: threads cost more than they give
    yield from _perceive_with_confidence(jobs, directory, min_confidence, load_reader, GRID_MIN_CONFIDENCE, "grid")


def _perceive_with_confidence(jobs, directory: Path, min_confidence: float | None, load, default_confidence: float,
                              kind: str) -> Iterator[dict]:
    """A reader that scores its own read: below the confidence threshold the netlist is not claimed."""
    import json

    from toolkit.maps.circuit import to_netlist
    from toolkit.maps.ppm import load_gray

    try:
        reader = load(directory)
    except ValueError as exc:
        raise InputError(f"--model {exc}") from None
    if min_confidence is None:
        min_confidence = float(json.loads((directory / "config.json").read_text()).get("min_confidence",
                                                                                        default_confidence))
    for cid, image, where in jobs:
        try:
            gray = load_gray(image)
        except FileNotFoundError:
            raise InputError(f"{where}: {image}: no such file") from None
        except ValueError as exc:
            raise InputError(f"{where}: {image}: {exc}") from None
        circuit, confidence = reader.read_with_confidence(gray)
        net = to_netlist(circuit, hide_values=True)
        rec = _netlist_record(cid, image, net.text(), confidence >= min_confidence, kind, directory)
        rec["confidence"] = round(confidence, 4)
        yield rec


def _perceive_learned(jobs, directory: Path, batch: int = 16) -> Iterator[dict]:
    import numpy as np

    from toolkit.maps.circuit import to_netlist
    from toolkit.maps.grid_text import parse_grid_text
    from toolkit.maps.ppm_model import load_learned, load_pixels

    try:
        ppm = load_learned(directory)
    except ValueError as exc:
        raise InputError(f"--model {exc}") from None
    jobs = list(jobs)
    for start in range(0, len(jobs), batch):
        chunk = jobs[start:start + batch]
        pixels = []
        for _cid, image, where in chunk:
            try:
                pixels.append(load_pixels(image, ppm.image_size))
            except FileNotFoundError:
                raise InputError(f"{where}: {image}: no such file") from None
            except ValueError as exc:
                raise InputError(f"{where}: {image}: {exc}") from None
        for (cid, image, _), text in zip(chunk, ppm.read_texts(np.stack(pixels)), strict=True):
            circuit = parse_grid_text(text)
            netlist = to_netlist(circuit, hide_values=True).text() if circuit else text
            rec = _netlist_record(cid, image, netlist, circuit is not None, "ppm", directory)
            rec["grid_text"] = text
            yield rec


def _perceive_vlm(jobs, directory: Path) -> Iterator[dict]:
    from toolkit.core.vlm import load_image, load_vlm

    vlm = load_vlm(directory, device="auto")
    for cid, image, where in jobs:
        picture = load_image(image, where=where)
        reply = vlm.generate([picture], [PPM_PROMPT], max_new_tokens=512)[0]
        yield _reply_record(cid, image, reply, "vlm", directory)


def _reply_record(cid: str, image: Path, reply: str, reader: str, directory: Path | None) -> dict:
    """A model's free-text reply: the ```spice block if any, parsed=False when it is no netlist."""
    from toolkit.maps.answer import parse_spice_block
    from toolkit.maps.netlist import parse_netlist

    text = parse_spice_block(reply) or reply
    try:
        parse_netlist(text)
        parsed = True
    except InputError:
        parsed = False
    return _netlist_record(cid, image, text, parsed, reader, directory)


def _data_url(image: Path) -> str:
    kind = "jpeg" if image.suffix.lower() in (".jpg", ".jpeg") else "png"
    return f"data:image/{kind};base64," + base64.b64encode(image.read_bytes()).decode()


def _perceive_llm(jobs, uri: str) -> Iterator[dict]:
    from toolkit.core.llm import from_uri

    backend = from_uri(uri)
    for cid, image, where in jobs:
        if not image.is_file():
            raise InputError(f"{where}: {image}: no such file")
        messages = [{"role": "user", "content": [{"type": "text", "text": PPM_PROMPT},
                                                 {"type": "image_url", "image_url": {"url": _data_url(image)}}]}]
        reply = backend.complete(messages, max_tokens=1024).texts[0]
        yield _reply_record(cid, image, reply, "llm", None)
