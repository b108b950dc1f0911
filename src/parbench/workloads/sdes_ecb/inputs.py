"""The sdes-ecb input: synthetic text in the shape of IMDb's title.basics.tsv."""
from __future__ import annotations

import random
from pathlib import Path

from parbench.project import cache_root
from parbench.workloads.input_files import InputError, publish_atomically

# The seed article's small input, kept byte for byte: its four lines are the point of the
# crossover experiment (about 60 bytes, where parallelism loses).
SEED_ARTICLE_SMALL_TEXT = "1234567890\nhogehoge\n私の名前はmorimorikochanです\nDiggy-mo!!!\n".encode()

HEADER = "tconst\ttitleType\tprimaryTitle\toriginalTitle\tisAdult\tstartYear\tendYear\truntimeMinutes\tgenres\n"
TITLE_TYPES = ["short", "movie", "tvSeries", "tvEpisode", "video", "tvMovie", "videoGame", "tvShort"]
GENRES = ["Documentary", "Short", "Animation", "Comedy", "Romance", "Sport", "News", "Drama",
          "Fantasy", "Horror", "Biography", "Music", "War", "Crime", "Western", "Family",
          "Adventure", "Action", "History", "Mystery", "Sci-Fi", "Musical", "Thriller"]
WORDS = ["the", "of", "a", "night", "love", "man", "story", "day", "life", "world", "last",
         "girl", "house", "time", "city", "blood", "dark", "return", "king", "war", "home",
         "summer", "secret", "lost", "dream", "road", "river", "star", "heart", "ghost",
         "Episode", "#1.1", "Le", "La", "Der", "Die", "El", "Il", "mystère", "Liebe", "amor"]


def _lines(seed: int):
    rng = random.Random(seed)
    number = 0
    while True:
        number += 1
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))).capitalize()
        original = title if rng.random() < 0.8 else " ".join(rng.choice(WORDS) for _ in range(3))
        start = str(rng.randint(1890, 2025)) if rng.random() < 0.9 else "\\N"
        end = str(rng.randint(1950, 2025)) if rng.random() < 0.05 else "\\N"
        minutes = str(rng.randint(1, 240)) if rng.random() < 0.7 else "\\N"
        genres = ",".join(sorted(rng.sample(GENRES, rng.randint(1, 3))))
        yield (f"tt{number:07d}\t{rng.choice(TITLE_TYPES)}\t{title}\t{original}\t"
               f"{int(rng.random() < 0.02)}\t{start}\t{end}\t{minutes}\t{genres}\n")


def ensure(size: int, seed: int = 1) -> Path:
    """Path of the cached input of `size` bytes, generating it in 64 MiB pieces if needed."""
    final = cache_root() / f"sdes-title-basics-s{seed}-{size}.tsv"
    if final.exists() and final.stat().st_size == size:
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_suffix(".tmp")
    try:
        _write(tmp, size, seed)
    except OSError as error:
        tmp.unlink(missing_ok=True)      # never leave a partial input behind (a full disk, say)
        raise InputError(f"cannot write the {size:,}-byte sdes-ecb input {final}: {error.strerror or error}") from None
    return publish_atomically(tmp, final)


def _write(tmp: Path, size: int, seed: int) -> None:
    piece = 1 << 26
    with open(tmp, "wb") as out:
        written, lines = 0, _lines(seed)
        out.write(HEADER.encode()[:size])
        written = min(size, len(HEADER))
        while written < size:
            chunk = bytearray()
            while len(chunk) < piece and written + len(chunk) < size:
                chunk += next(lines).encode()
            chunk = chunk[: size - written]
            out.write(chunk)
            written += len(chunk)


def ensure_seed_article_text() -> Path:
    final = cache_root() / "sdes-seed-article-four-lines.txt"
    if not final.exists():
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.with_suffix(".tmp")
        tmp.write_bytes(SEED_ARTICLE_SMALL_TEXT)
        publish_atomically(tmp, final)
    return final
