"""Reading a checkpoint's tensors from its safetensors headers, and never its weights."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config.files.safetensors_headers import (
    DTYPE_BITS,
    INDEX_FILE,
    MAX_HEADER_BYTES,
    MAX_TENSORS,
    TensorHeader,
    WeightsFileError,
    find_weight_files,
    parse_header,
    read_checkpoint_headers,
    read_file_header,
)
from tests.checkpoint_factory import header_bytes, write_safetensors, write_sharded

GIB = 1 << 30


def test_a_file_written_by_the_safetensors_library_reads_as_safe_open_lists_it(
    tmp_path: Path,
) -> None:
    torch = pytest.importorskip("torch")
    from safetensors import safe_open
    from safetensors.torch import save_file

    tensors = {
        "fc.weight": torch.zeros(8, 24, dtype=torch.bfloat16),
        "layers.0.mlp.up_proj.weight": torch.zeros(16, 8, dtype=torch.float16),
        "d2t": torch.zeros(5, dtype=torch.int64),
        "scalar": torch.zeros((), dtype=torch.float32),
    }
    path = tmp_path / "model.safetensors"
    save_file(tensors, str(path), metadata={"format": "pt"})
    header = read_file_header(str(path))
    with safe_open(str(path), framework="pt") as opened:
        expected = {name: tuple(opened.get_slice(name).get_shape()) for name in opened.keys()}  # noqa: SIM118
    assert {name: t.shape for name, t in header.tensors.items()} == expected
    assert header.tensors["fc.weight"] == TensorHeader("BF16", (8, 24), "model.safetensors")
    assert header.tensors["d2t"].dtype == "I64"
    assert header.header_bytes == 8 + _header_length(path)


def _header_length(path: Path) -> int:
    with path.open("rb") as file:
        return int.from_bytes(file.read(8), "little")


def test_a_sparse_multi_gigabyte_checkpoint_is_read_by_its_headers_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shards = [
        {
            f"layers.{i}.mlp.down_proj.weight": ("BF16", (4096, 65536))
            for i in range(2 * s, 2 * s + 2)
        }
        for s in range(3)
    ]
    paths = write_sharded(tmp_path, shards)
    size = sum(p.stat().st_size for p in paths)
    assert size > 3 * GIB  # sparse: the test costs kilobytes of disk
    read: list[int] = []
    real_read = os.read

    def counting_read(fd: int, count: int) -> bytes:
        data = real_read(fd, count)
        read.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting_read)
    checkpoint = read_checkpoint_headers(str(tmp_path))
    assert checkpoint is not None
    headers = sum(8 + _header_length(p) for p in paths)
    index = (tmp_path / INDEX_FILE).stat().st_size
    assert headers == checkpoint.bytes_read
    assert sum(read) == index + headers  # the index and the headers, not a byte of weights
    assert sum(read) < 2000
    assert len(checkpoint.tensors) == 6
    assert checkpoint.files == tuple(p.name for p in paths)


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=20).filter(lambda n: n != "__metadata__"),
        st.tuples(
            st.sampled_from(["BF16", "F32", "I64", "U8"]), st.lists(st.integers(0, 50), max_size=4)
        ),
        max_size=8,
    )
)
def test_any_header_written_by_the_format_reads_back(
    tensors: dict[str, tuple[str, list[int]]],
) -> None:
    data = header_bytes(tensors, metadata={"format": "pt"})
    parsed = parse_header(data, name="x.safetensors", path="x.safetensors", file_size=None)
    assert {n: (t.dtype, list(t.shape)) for n, t in parsed.tensors.items()} == tensors
    assert parsed.header_bytes == 8 + len(data)


@given(st.binary(max_size=64))
def test_arbitrary_header_bytes_are_a_file_error_or_a_header(data: bytes) -> None:
    try:
        parse_header(data, name="x.safetensors", path="x.safetensors", file_size=10**6)
    except WeightsFileError as error:
        message = str(error)
    else:
        message = "x.safetensors: parsed"
    assert message.startswith("x.safetensors: ")


def _file_with(tmp_path: Path, raw: bytes) -> str:
    path = tmp_path / "model.safetensors"
    path.write_bytes(raw)
    return str(path)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"", "truncated: the file has 0 bytes, fewer than the 8-byte header length"),
        (b"\x05\0\0", "truncated: the file has 3 bytes"),
        (
            (100).to_bytes(8, "little") + b"{}",
            "truncated: the header length in its first 8 bytes runs past the end of the file "
            "(10 bytes)",
        ),
        ((MAX_HEADER_BYTES + 1).to_bytes(8, "little"), "over the safetensors limit of 100,000,000"),
        ((2**64 - 1).to_bytes(8, "little"), "over the safetensors limit"),
        ((3).to_bytes(8, "little") + b"{x}", "the safetensors header is not JSON"),
        ((2).to_bytes(8, "little") + b"\xff\xfe", "the safetensors header is not a JSON object"),
        ((3).to_bytes(8, "little") + b"{\xff}", "the safetensors header is not JSON"),
        (
            (2).to_bytes(8, "little") + b"[]",
            "the safetensors header is not a JSON object",
        ),
    ],
)
def test_a_broken_file_is_an_error_naming_it(tmp_path: Path, raw: bytes, problem: str) -> None:
    path = _file_with(tmp_path, raw)
    with pytest.raises(WeightsFileError) as caught:
        read_file_header(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert problem in str(caught.value)
    assert caught.value.path == path


@pytest.mark.slow
def test_a_header_at_the_limit_is_read_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    with path.open("wb") as file:  # {} and spaces: padding is allowed by the format
        file.write(MAX_HEADER_BYTES.to_bytes(8, "little") + b"{}")
        file.truncate(8 + MAX_HEADER_BYTES)
    with path.open("r+b") as file:
        file.seek(10)
        file.write(b" " * (MAX_HEADER_BYTES - 2))
    assert read_file_header(str(path)).tensors == {}


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ([1], "expected an object with dtype, shape and data_offsets"),
        ({"dtype": 5, "shape": [1], "data_offsets": [0, 2]}, "`dtype` must be a string"),
        ({"dtype": "F16", "shape": [-1], "data_offsets": [0, 2]}, "`shape` must be an array"),
        ({"dtype": "F16", "shape": [True], "data_offsets": [0, 2]}, "`shape` must be an array"),
        ({"dtype": "F16", "shape": "1", "data_offsets": [0, 2]}, "`shape` must be an array"),
        (
            {"dtype": "F16", "shape": [1], "data_offsets": [2, 0]},
            "`data_offsets` must be [begin, end]",
        ),
        (
            {"dtype": "F16", "shape": [1], "data_offsets": [0]},
            "`data_offsets` must be [begin, end]",
        ),
        (
            {"dtype": "F16", "shape": [1], "data_offsets": [0, 2.0]},
            "`data_offsets` must be [begin, end]",
        ),
    ],
)
def test_a_malformed_tensor_entry_names_the_tensor(entry: object, problem: str) -> None:
    data = json.dumps({"fc.weight": entry}).encode()
    with pytest.raises(WeightsFileError, match=r"tensor 'fc\.weight' in the header") as caught:
        parse_header(data, name="m.safetensors", path="m.safetensors", file_size=None)
    assert problem in str(caught.value)


def test_a_tensor_whose_data_runs_past_the_end_of_the_file_is_an_error(tmp_path: Path) -> None:
    path = write_safetensors(tmp_path / "model.safetensors", {"fc.weight": ("BF16", (64, 64))})
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size - 1)  # one byte of weights lost
    with pytest.raises(
        WeightsFileError, match=r"tensor 'fc\.weight' in the header: its data runs to byte"
    ) as caught:
        read_file_header(str(path))
    assert "past the end of the file" in str(caught.value)
    assert caught.value.path == str(path)


def test_an_empty_tensor_past_the_end_is_said_to_run_past_it_not_to_be_malformed() -> None:
    """``begin == end`` is a well-formed empty tensor: when it lies past the end of the file,
    the reason is where its data runs, not its offsets."""
    entry = {"dtype": "F16", "shape": [0], "data_offsets": [4, 4]}
    data = json.dumps({"fc.weight": entry}).encode()
    with pytest.raises(WeightsFileError, match="its data runs to byte 81, past the end"):
        parse_header(data, name="m.safetensors", path="m.safetensors", file_size=8 + len(data))


def test_a_missing_file_a_directory_and_a_fifo_are_errors_not_hangs(tmp_path: Path) -> None:
    with pytest.raises(WeightsFileError, match="no such file"):
        read_file_header(str(tmp_path / "gone.safetensors"))
    (tmp_path / "dir.safetensors").mkdir()
    with pytest.raises(WeightsFileError, match="not a regular file"):
        read_file_header(str(tmp_path / "dir.safetensors"))
    os.mkfifo(tmp_path / "pipe.safetensors")
    with pytest.raises(WeightsFileError, match="not a regular file"):
        read_file_header(str(tmp_path / "pipe.safetensors"))


def test_a_shard_named_in_the_index_but_missing_is_an_error_naming_it(tmp_path: Path) -> None:
    paths = write_sharded(
        tmp_path, [{"a": ("F32", (2,))}, {"b": ("F32", (2,))}, {"c": ("F32", (2,))}]
    )
    paths[1].unlink()
    paths[2].unlink()
    with pytest.raises(WeightsFileError) as caught:
        read_checkpoint_headers(str(tmp_path))
    assert caught.value.path == str(paths[1])
    assert f"named in {INDEX_FILE} but missing (and 1 more shards)" in str(caught.value)


def test_a_tensor_the_index_places_in_a_shard_that_lacks_it_is_recorded_not_refused(
    tmp_path: Path,
) -> None:
    """vLLM reads the index only to pick the shard files (``filter_duplicate_safetensors_files``)
    and loads what each shard holds: a stale placement does not fail the load."""
    paths = write_sharded(tmp_path, [{"a": ("F32", (2,))}, {"b": ("F32", (2,))}])
    index = json.loads((tmp_path / INDEX_FILE).read_text())
    index["weight_map"]["a"] = paths[1].name
    index["weight_map"]["gone"] = paths[0].name
    (tmp_path / INDEX_FILE).write_text(json.dumps(index))
    checkpoint = read_checkpoint_headers(str(tmp_path))
    assert checkpoint is not None
    assert set(checkpoint.tensors) == {"a", "b"}
    assert checkpoint.misplaced == (("a", paths[1].name), ("gone", paths[0].name))


def test_shards_the_index_does_not_name_are_ignored_as_vllm_ignores_them(tmp_path: Path) -> None:
    write_sharded(tmp_path, [{"a": ("F32", (2,))}, {"b": ("F32", (3,))}])
    (tmp_path / "consolidated.safetensors").write_bytes(b"not a safetensors file at all")
    checkpoint = read_checkpoint_headers(str(tmp_path))
    assert checkpoint is not None
    assert set(checkpoint.tensors) == {"a", "b"}
    assert "consolidated.safetensors" not in checkpoint.files


def test_without_an_index_every_safetensors_file_is_read_as_vllm_globs_them(tmp_path: Path) -> None:
    write_sharded(tmp_path, [{"a": ("F32", (2,))}, {"b": ("F32", (3,))}], index=False)
    checkpoint = read_checkpoint_headers(str(tmp_path))
    assert checkpoint is not None
    assert checkpoint.tensors["b"] == TensorHeader("F32", (3,), "model-00002-of-00002.safetensors")


@pytest.mark.parametrize(
    "index",
    [
        "[]",
        '{"weight_map": [1]}',
        '{"weight_map": {"a": 1}}',
        '{"metadata": {}}',
    ],
)
def test_a_malformed_index_is_an_error_naming_it(tmp_path: Path, index: str) -> None:
    write_sharded(tmp_path, [{"a": ("F32", (2,))}])
    (tmp_path / INDEX_FILE).write_text(index)
    with pytest.raises(WeightsFileError) as caught:
        read_checkpoint_headers(str(tmp_path))
    assert caught.value.path == str(tmp_path / INDEX_FILE)


def test_no_weights_and_bin_only_are_told_apart(tmp_path: Path) -> None:
    assert read_checkpoint_headers(str(tmp_path)) is None
    assert not find_weight_files(str(tmp_path)).bin_only
    (tmp_path / "pytorch_model.bin").write_bytes(b"\0" * 16)
    assert read_checkpoint_headers(str(tmp_path)) is None
    assert find_weight_files(str(tmp_path)).bin_only
    assert not find_weight_files(str(tmp_path / "missing")).bin_only


def test_a_tensor_in_two_shards_is_fine_where_the_index_places_it(tmp_path: Path) -> None:
    paths = write_sharded(
        tmp_path, [{"a": ("F32", (2,))}, {"a": ("F32", (3,)), "b": ("F32", (1,))}]
    )
    index = json.loads((tmp_path / INDEX_FILE).read_text())
    index["weight_map"]["a"] = paths[0].name
    (tmp_path / INDEX_FILE).write_text(json.dumps(index))
    checkpoint = read_checkpoint_headers(str(tmp_path))
    assert checkpoint is not None
    assert checkpoint.tensors["a"].shape == (3,)  # vLLM loads both; the last one stays


def test_a_git_lfs_pointer_is_told_apart_from_a_broken_file(tmp_path: Path) -> None:
    from drafting_config.files.safetensors_headers import LfsPointerError

    path = _file_with(
        tmp_path, b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n"
    )
    with pytest.raises(LfsPointerError, match="a Git LFS pointer, not the weights"):
        read_file_header(path)
    path = _file_with(tmp_path, b"version of something else entirely")
    with pytest.raises(WeightsFileError) as caught:
        read_file_header(path)
    assert type(caught.value) is WeightsFileError


# What the safetensors library refuses: hostile headers, sizes and offsets.

_DTYPES = [*DTYPE_BITS, "X9", "bf16"]  # the library's dtypes, and two it does not know


@st.composite
def _safetensors_files(draw: st.DrawFn) -> bytes:
    """A whole safetensors file: mostly well formed, with one defect now and then (an unknown
    dtype, a gap, an overlap, a size that does not match, a product over 64 bits, trailing or
    missing bytes)."""
    count = draw(st.integers(0, 4))
    header: dict[str, object] = {}
    if draw(st.booleans()):
        header["__metadata__"] = draw(st.sampled_from([None, {"format": "pt"}, {"a": 1}, "x"]))
    offset = 0
    for index in range(count):
        dtype = draw(st.sampled_from(_DTYPES))
        shape = draw(
            st.lists(
                st.one_of(st.integers(0, 3), st.sampled_from([2**32, 2**63, 2**64])),
                max_size=3,
            )
        )
        elements = 1
        for dim in shape:
            elements *= dim
        bits = elements * DTYPE_BITS.get(dtype, 8)
        size = bits // 8 if bits < 1 << 20 else 0
        begin = offset + draw(st.sampled_from([0, 0, 0, 1, -1]))
        end = begin + size + draw(st.sampled_from([0, 0, 0, 1, -1]))
        header[f"t{index}"] = {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}
        offset = max(offset, end)
    data = json.dumps(header).encode() + b" " * draw(st.integers(0, 7))
    weights = max(0, offset + draw(st.sampled_from([0, 0, 1, -1])))
    return len(data).to_bytes(8, "little") + data + b"\0" * weights


@given(_safetensors_files())
def test_headers_are_refused_exactly_when_the_safetensors_library_refuses_them(
    tmp_path_factory: pytest.TempPathFactory, raw: bytes
) -> None:
    """A differential test against ``safe_open`` itself, which vLLM loads each shard with."""
    pytest.importorskip("torch")
    from safetensors import safe_open

    path = tmp_path_factory.mktemp("differential") / "model.safetensors"
    path.write_bytes(raw)
    try:
        with safe_open(str(path), framework="pt") as opened:
            expected: dict[str, tuple[int, ...]] | None = {
                name: tuple(opened.get_slice(name).get_shape())
                for name in opened.keys()  # noqa: SIM118
            }
    except Exception:
        expected = None
    if expected is None:
        with pytest.raises(WeightsFileError) as caught:
            read_file_header(str(path))
        assert str(caught.value).startswith(f"{path}: ")
    else:
        header = read_file_header(str(path))
        assert expected == {name: t.shape for name, t in header.tensors.items()}


@pytest.mark.parametrize(
    ("entries", "trailing", "problem"),
    [
        (
            {"a": ("BF16", [2], [0, 4]), "b": ("Q4", [2], [4, 5])},
            0,
            "tensor 'b' in the header: `dtype` 'Q4' (str) is none of the safetensors library's",
        ),
        (
            {"a": ("BF16", [2], [0, 4]), "b": ("U8", [2], [3, 5])},
            0,
            "tensor 'b' in the header: its data_offsets [3, 5] overlaps the data before it",
        ),
        (
            {"a": ("BF16", [2], [0, 4]), "b": ("U8", [2], [5, 7])},
            0,
            "tensor 'b' in the header: its data_offsets [5, 7] leaves a gap",
        ),
        (
            {"a": ("BF16", [2], [0, 5])},
            0,
            "tensor 'a' in the header: its data_offsets span 5 bytes but shape [2] of BF16 "
            "needs 4 bytes",
        ),
        (
            {"a": ("F4", [3], [0, 2])},
            0,
            "shape [3] of F4 needs a whole number of bytes",
        ),
        (
            {"a": ("U8", [2**40, 2**40], [0, 0])},
            0,
            "tensor 'a' in the header: shape [1099511627776, 1099511627776] of U8 overflows "
            "a 64-bit size",
        ),
        ({"a": ("U8", [2], [0, 2])}, 3, "3 bytes follow the last tensor's data"),
    ],
)
def test_what_safe_open_refuses_is_an_error_naming_the_tensor_and_the_file(
    tmp_path: Path,
    entries: dict[str, tuple[str, list[int], list[int]]],
    trailing: int,
    problem: str,
) -> None:
    header = {
        name: {"dtype": dtype, "shape": shape, "data_offsets": offsets}
        for name, (dtype, shape, offsets) in entries.items()
    }
    data = json.dumps(header).encode()
    end = max(offsets[1] for _, _, offsets in entries.values())
    path = _file_with(tmp_path, len(data).to_bytes(8, "little") + data + b"\0" * (end + trailing))
    with pytest.raises(WeightsFileError) as caught:
        read_file_header(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert problem in str(caught.value)
    assert "the safetensors library refuses" in str(caught.value)


@pytest.mark.parametrize(
    "header",
    [
        '{"a": {"dtype": "U8", "shape": [%s], "data_offsets": [0, 0]}}',
        '{"a": {"dtype": "U8", "shape": [0], "data_offsets": [0, %s]}}',
        '{"__metadata__": {"n": %s}}',
    ],
)
def test_an_integer_literal_too_long_for_python_is_an_error_not_an_exception(
    header: str,
) -> None:
    data = (header % ("9" * 5000)).encode()
    with pytest.raises(WeightsFileError) as caught:
        parse_header(data, name="m.safetensors", path="m.safetensors", file_size=None)
    assert "the safetensors header cannot be read: an integer literal with 5,000 digits" in str(
        caught.value
    )


def test_a_long_tensor_name_is_shown_bounded(tmp_path: Path) -> None:
    name = "x" * 5_000_000
    data = json.dumps({name: {"dtype": "Q4", "shape": [], "data_offsets": [0, 0]}}).encode()
    with pytest.raises(WeightsFileError) as caught:
        parse_header(data, name="m.safetensors", path="m.safetensors", file_size=None)
    message = str(caught.value)
    assert len(message) < 1000
    assert "(5,000,000 characters)" in message


def test_no_byte_of_a_file_linked_as_a_safetensors_file_is_shown(tmp_path: Path) -> None:
    """A ``*.safetensors`` link may point at any file: its first 8 bytes are not printed as
    a "header length", however they read."""
    secret = tmp_path / "secret"
    for content in (b"hunter2-and-more-text", b"\x10\0\0\0\0\0\0\0{}"):
        secret.write_bytes(content)
        link = tmp_path / "model.safetensors"
        link.unlink(missing_ok=True)
        link.symlink_to(secret)
        with pytest.raises(WeightsFileError) as caught:
            read_file_header(str(link))
        message = caught.value.problem
        length = int.from_bytes(content[:8], "little")
        assert str(length) not in message.replace(",", "")
        assert "hunter2" not in message
        assert "this is not a safetensors file, or it is corrupt" in message


def test_a_header_that_is_no_object_or_lists_too_many_tensors_is_refused_unparsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_parse(*args: object, **kwargs: object) -> object:
        raise AssertionError("parsed")

    monkeypatch.setattr(json, "loads", no_parse)
    with pytest.raises(WeightsFileError, match="not a JSON object"):
        parse_header(b" [" * 1000, name="m", path="m", file_size=None)
    entry = b'"t%d":{"dtype":"U8","shape":[],"data_offsets":[0,0]}'
    many = b"{" + b",".join(entry % i for i in range(MAX_TENSORS + 1)) + b"}"
    with pytest.raises(WeightsFileError, match="lists more than 250,000 tensors"):
        parse_header(many, name="m", path="m", file_size=None)


def test_a_header_may_start_with_spaces_as_the_safetensors_library_allows() -> None:
    data = b' \n{"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}}'
    header = parse_header(data, name="m", path="m", file_size=8 + len(data) + 2)
    assert header.tensors["a"].shape == (2,)


def test_an_index_with_an_empty_weight_map_is_an_error_naming_it(tmp_path: Path) -> None:
    """vLLM keeps only the files the index names, so none, and fails: "Cannot find any model
    weights" (``default_loader.py``, ``_prepare_weights``)."""
    write_sharded(tmp_path, [{"fc.weight": ("BF16", (4, 8))}])
    (tmp_path / INDEX_FILE).write_text('{"metadata": {}, "weight_map": {}}')
    with pytest.raises(WeightsFileError, match="`weight_map` is empty") as caught:
        read_checkpoint_headers(str(tmp_path))
    assert caught.value.path == str(tmp_path / INDEX_FILE)
    assert "Cannot find any model weights" in str(caught.value)


def test_a_broken_link_is_a_missing_weights_file(tmp_path: Path) -> None:
    from drafting_config.files.safetensors_headers import MissingShardError

    (tmp_path / "model.safetensors").symlink_to(tmp_path / "blob-never-fetched")
    with pytest.raises(MissingShardError, match="no such file"):
        read_checkpoint_headers(str(tmp_path))


def test_a_directory_is_listed_once_per_listings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from drafting_config.files.safetensors_headers import DirectoryListings

    write_safetensors(tmp_path / "model.safetensors", {"a": ("F32", (2,))})
    listed: list[object] = []
    real_scandir = os.scandir

    def counting_scandir(path: str) -> object:
        listed.append(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)
    listings = DirectoryListings()
    for _ in range(3):
        assert read_checkpoint_headers(str(tmp_path), listings) is not None
    assert listed == [str(tmp_path)]
