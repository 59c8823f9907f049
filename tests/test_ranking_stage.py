"""The ranking stage after fusion (ranking_stage.py, question_shape.py): each rule on its own,
on hand-made candidates, so a rule that stops working fails here whatever the model does.
Its effect on real retrieval is measured by `python -m bench.peer` and `bench.realrepos`."""

from __future__ import annotations

from dataclasses import replace

import pytest

from branchwise.lexical import name_query
from branchwise.models import Identity, Result
from branchwise.ranking import RankingSettings
from branchwise.search.question_shape import defines, names_file, path_word_share, shape_of, spells_name, stem_names
from branchwise.search.ranking_stage import named_files, older_copies, restage

OFF = RankingSettings(definition_boost=0, path_boost=0, file_coherence=0, file_decay=1, reexport_weight=1, file_spread=1)


def result(path: str, name: str, score: float, kind: str = "function", lines: tuple[int, int] = (1, 2)) -> Result:
    return Result(rank=0, score=score, identity=Identity("r", path, "python", kind, name), branch="main",
                  commit="c", start_line=lines[0], end_line=lines[1], indexed_at="", content_hash=name, text="", blob=None,
                  version_id=name)


def order(results: list[Result]) -> list[str]:
    return [f"{r.identity.path}::{r.identity.qualified_name}" for r in results]


@pytest.mark.parametrize("question, names, bare", [
    ("Router", {"Router"}, True),
    ("Sinatra::Base", {"Base", "Sinatra.Base"}, True),
    ("HTTPAdapter", {"HTTPAdapter"}, True),
    ("field_validator", {"field_validator"}, True),
    ("_private", {"_private"}, True),
    ("session", set(), False),
    ("how does safeParse report errors", {"safeParse"}, False),
    ("Where is the Router defined", {"Router"}, False),
    ("how serde_derive writes fields with serialize_field", {"serde_derive", "serialize_field"}, False),
    ("How HTTP and JSON parsing work in Go", set(), False),  # the opening word, acronyms, "Go"
    ("How To Configure The Logger", set(), False),  # a title capitalises every word
    ("how the Logger is configured", {"Logger"}, False),
    ("find Router", {"Router"}, False),
    ("app.set and settings storage", {"app.set"}, False),
    ("how Picker:find opens a window and Sinatra::Base routes", {"Picker", "Picker.find", "Sinatra", "Sinatra.Base"}, False),
    ("how M.load reads a file, e.g. a spec", set(), False),  # a one-letter qualifier is an alias
])
def test_question_shapes(question, names, bare):
    shape = shape_of(question)
    assert set(shape.names) == names and shape.bare is bare


def test_definitions_by_own_or_qualified_name():
    assert defines("Sinatra.Base", frozenset({"Base", "Sinatra.Base"}))
    assert defines("Router", frozenset({"Router"})) and defines("Router#2", frozenset({"Router"}))
    assert defines("Request.accept?", frozenset({"accept"}))
    assert not defines("RouterGroup", frozenset({"Router"}))
    assert not defines("Other.Base", frozenset({"Sinatra.Base"}))
    assert stem_names("lib/phoenix/router.ex", "Router") and stem_names("src/http_adapter.py", "HTTPAdapter".lower())
    assert not stem_names("lib/routing.ex", "Router")


def test_a_bare_name_puts_its_definition_first():
    def candidates():
        return [result("app/use.py", "call_router", 1.0), result("app/other.py", "Router.route", 0.9),
                result("app/router.py", "Router", 0.2, "class")]

    staged = restage("Router", candidates(), replace(OFF, definition_boost=3.0))
    assert order(staged)[0] == "app/router.py::Router"
    assert order(restage("Router", candidates(), OFF))[0] == "app/use.py::call_router"


def test_a_name_inside_a_sentence_counts_half():
    candidates = [result("a.py", "parse", 1.0), result("b.py", "safeParse", 0.4)]
    staged = restage("how does safeParse report errors", candidates, replace(OFF, definition_boost=3.0))
    assert order(staged)[0] == "b.py::safeParse"
    assert staged[0].score == pytest.approx(0.4 + 1.0 * 3.0 * 0.5)


def test_a_snake_case_or_capitalised_name_inside_a_sentence_counts_half_too():
    candidates = [result("a.py", "flatMap", 1.0), result("monad.scala", "Monad", 0.4, "class")]
    staged = restage("how Monad composes effects", candidates, replace(OFF, definition_boost=3.0))
    assert order(staged)[0] == "monad.scala::Monad"  # 0.4 + 1.5 x 1.5 (its file is named after it)
    candidates = [result("a.rs", "serialize", 1.0), result("b.rs", "serialize_field", 0.4)]
    staged = restage("how structs are written with serialize_field", candidates, replace(OFF, definition_boost=3.0))
    assert order(staged)[0] == "b.rs::serialize_field"


@pytest.mark.parametrize("question, types", [
    ("Mutex and Semaphore for coroutine synchronization", {"Mutex"}),  # `Semaphore` is a name already
    ("Print the error and exit", {"Print"}),  # a verb too: only a type of that name would answer
    ("How does a group pick its command", set()),  # a stop word
    ("How To Configure The Logger", set()),  # a title
    ("Go", set()),  # two letters
    ("channel for sending values", set()),
])
def test_a_sentences_capitalised_first_word_asks_only_for_a_type(question, types):
    assert set(shape_of(question).types) == types


def test_a_capitalised_first_word_lifts_a_type_of_that_name_in_its_own_file_only():
    """"Channel for sending values between coroutines" asks for `Channel`, but "Print the error
    and exit" does not ask for the method `Print`, nor "File that is opened when first used" for
    a `File` class declared among many other types: a type in a file named after it is the
    type the sentence names."""
    def candidates(kind: str, path: str = "channels/Channel.kt"):
        return [result("channels/Produce.kt", "produce", 1.0), result(path, "Channel", 0.4, kind)]

    boost = replace(OFF, definition_boost=3.0)
    assert order(restage("Channel for sending values", candidates("interface"), boost))[0] == "channels/Channel.kt::Channel"
    assert order(restage("Channel for sending values", candidates("method"), boost))[0] == "channels/Produce.kt::produce"
    assert order(restage("Channel for sending values", candidates("class", "types.kt"), boost))[0] \
        == "channels/Produce.kt::produce"
    assert order(restage("channel for sending values", candidates("interface"), boost))[0] == "channels/Produce.kt::produce"


def test_a_name_inside_a_sentence_that_many_candidates_define_shares_its_boost_among_them():
    """Every class overrides `hashCode`: the name points at none of them, as a rare word in a
    question says more than a common one. A bare name still lifts each of its definitions whole."""
    def candidates():
        return [result("StrBuilder.java", "StrBuilder.hashCode", 1.0, "method"),
                result("CharRange.java", "CharRange.hashCode", 0.9, "method"),
                result("HashCodeBuilder.java", "HashCodeBuilder.append", 0.95, "method"),
                result("HashCodeBuilder.java", "HashCodeBuilder.hashCode", 0.8, "method"),
                result("Safe.java", "Safe.safeParse", 0.1, "method")]

    staged = {r.identity.qualified_name: r.score for r in restage(
        "hash code builder for a consistent hashCode and safeParse", candidates(), replace(OFF, definition_boost=3.0))}
    assert staged["StrBuilder.hashCode"] == pytest.approx(1.0 + 1.0 * 3.0 * 0.5 / 3)
    assert staged["HashCodeBuilder.hashCode"] == pytest.approx(0.8 + 1.0 * 3.0 * 0.5 / 3)
    assert staged["HashCodeBuilder.append"] == pytest.approx(0.95)
    assert staged["Safe.safeParse"] == pytest.approx(0.1 + 1.0 * 3.0 * 0.5)  # defined once: the whole half
    bare = {r.identity.qualified_name: r.score for r in restage("hashCode", candidates(), replace(OFF, definition_boost=3.0))}
    assert bare["CharRange.hashCode"] == pytest.approx(0.9 + 1.0 * 3.0)


def test_a_whole_file_or_prose_section_is_no_definition():
    candidates = [result("a.py", "x", 1.0), result("docs/Router.md", "Router", 0.5, "section")]
    assert order(restage("Router", candidates, replace(OFF, definition_boost=3.0)))[0] == "a.py::x"


def test_path_words_lift_the_file_they_name():
    assert path_word_share(frozenset({"cookies", "signed"}), "lib/sessions/cookies.py") == 0.5
    assert path_word_share(frozenset({"dependency"}), "fastapi/dependencies/utils.py") == 1.0
    assert path_word_share(frozenset({"io"}), "lib/ioctl.c") == 0.0
    candidates = [result("lib/app.py", "handle", 1.0), result("lib/cookies.py", "sign", 0.8)]
    staged = restage("how are cookies signed", candidates, replace(OFF, path_boost=1.0))
    assert order(staged)[0] == "lib/cookies.py::sign"


def test_a_file_is_named_only_by_words_that_spell_its_whole_name():
    assert names_file(frozenset({"command", "dispatch"}), "railties/lib/rails/command.rb")
    assert names_file(frozenset({"path", "management"}), "lib/rails/paths.rb")
    assert names_file(frozenset({"publish", "notification"}), "src/NotificationPublisher.cs")
    # a name that says more than the question, or abbreviates one of its words, is not named
    assert not names_file(frozenset({"group", "routes", "prefix"}), "Slim/Interfaces/RouteGroupInterface.php")
    assert not names_file(frozenset({"decode", "string", "bytes"}), "okio/SegmentedByteString.kt")
    assert not names_file(frozenset({"walk", "argument", "list"}), "args.go")
    assert not names_file(frozenset({"anything"}), "a/__init__.py")  # no part of three letters


def test_a_name_in_code_form_names_files_by_its_words():
    """A question's words are read as a file's name is: `safeParse` is "safe" and "parse", so
    it names `parse.ts`, and "toString builder" names `ToStringBuilder.java`."""
    assert shape_of("how safeParse returns a result without throwing").words >= {"safe", "parse"}
    assert names_file(shape_of("toString builder for object descriptions").words, "lang3/builder/ToStringBuilder.java")
    assert names_file(shape_of("how serialize_field writes one").words, "ser/field.rs")
    candidates = [result("core/schemas.ts", "safeParseAsync", 1.0), result("core/parse.ts", "run", 0.9)]
    staged = restage("how safeParse returns a result", candidates, replace(OFF, path_boost=1.0))
    assert order(staged)[0] == "core/parse.ts::run"


def test_a_file_named_by_the_question_does_not_displace_the_symbol_its_words_spell():
    assert spells_name(frozenset({"order", "total", "price"}), "order_total")
    assert spells_name(frozenset({"optimizer", "thresholds"}), "Config.optimizer_thresholds#2")
    assert not spells_name(frozenset({"order", "price"}), "order_total")
    assert not spells_name(frozenset({"order"}), "Order")  # one word is no name in words
    candidates = [result("src/pricing.py", "order_total", 1.0), result("src/orders.py", "place_order", 0.9)]
    staged = restage("order total price", candidates, replace(OFF, path_boost=1.0))
    assert order(staged)[0] == "src/pricing.py::order_total"
    # the same file is named when the channels' first result is not a name the words spell
    candidates = [result("src/pricing.py", "sum_items", 1.0), result("src/orders.py", "place_order", 0.9)]
    assert order(restage("order total price", candidates, replace(OFF, path_boost=1.0)))[0] == "src/orders.py::place_order"


def test_only_the_best_chunk_of_the_files_named_most_fully_gains():
    words = shape_of("write the bash completion script to a file").words
    named = named_files(words, ["bash_completions.go", "completions.go", "command.go"])
    assert set(named) == {"bash_completions.go"}  # completions.go carries fewer of the words
    candidates = [result("command.go", "Execute", 1.0), result("completion.go", "Gen", 0.9),
                  result("completion.go", "GenFile", 0.85), result("completion_test.go", "TestGen", 0.8)]
    staged = restage("how completion works", candidates, replace(OFF, path_boost=1.0))
    assert order(staged) == ["completion.go::Gen", "command.go::Execute", "completion.go::GenFile",
                             "completion_test.go::TestGen"]


def test_chunks_inside_a_chunk_ranked_above_decay_and_siblings_do_not():
    candidates = [result("a.py", "Box", 1.0, "class", (1, 40)), result("a.py", "Box.open", 0.9, "method", (5, 9)),
                  result("a.py", "Box.open.inner", 0.8, "function", (6, 7)), result("a.py", "helper", 0.7, lines=(42, 50)),
                  result("b.py", "other", 0.6)]
    staged = restage("what", candidates, replace(OFF, file_decay=0.5))
    assert order(staged) == ["a.py::Box", "a.py::helper", "b.py::other", "a.py::Box.open", "a.py::Box.open.inner"]
    assert [r.score for r in staged] == pytest.approx([1.0, 0.7, 0.6, 0.45, 0.2])


def test_coherence_lifts_the_best_chunk_of_a_file_with_many_strong_candidates():
    candidates = [result("lone.py", "x", 1.0), result("many.py", "a", 0.95), result("many.py", "b", 0.9),
                  result("many.py", "c", 0.9)]
    staged = restage("what", candidates, replace(OFF, file_coherence=0.2))
    assert order(staged)[0] == "many.py::a"


def test_reexports_and_type_stubs_step_back():
    candidates = [result("pkg/__init__.py", "Thing", 1.0), result("pkg/thing.py", "Thing", 0.8),
                  result("types/index.d.ts", "Thing", 0.9)]
    staged = restage("what", candidates, replace(OFF, reexport_weight=0.5))
    assert order(staged)[0] == "pkg/thing.py::Thing"


def c_function(path: str, name: str, score: float, text: str) -> Result:
    found = result(path, name, score)
    found.identity = Identity("r", path, "c", "function", name)
    found.text = text
    return found


def test_a_prototype_steps_back_and_lends_its_score_to_the_definition():
    def candidates():
        return [c_function("lib/hostip.h", "Curl_resolv", 1.0, "/* Resolve a host. */\nint Curl_resolv(char *host);"),
                c_function("lib/other.c", "Curl_other", 0.7, "int Curl_other(void) {\n  return 0;\n}"),
                c_function("lib/hostip.c", "Curl_resolv", 0.4, "int Curl_resolv(char *host) {\n  return 1;\n}")]

    staged = restage("resolve a host", candidates(), replace(OFF, reexport_weight=0.5))
    assert order(staged) == ["lib/hostip.c::Curl_resolv", "lib/other.c::Curl_other", "lib/hostip.h::Curl_resolv"]
    assert staged[0].score == pytest.approx(1.0) and staged[2].score == pytest.approx(0.5)
    assert order(restage("resolve a host", candidates(), OFF))[0] == "lib/hostip.h::Curl_resolv"


def test_an_older_copy_under_a_version_folder_steps_back():
    assert older_copies({"pydantic/v1/main.py", "pydantic/main.py", "pydantic/v1/fields.py"}) \
        == {"pydantic/v1/main.py", "pydantic/v1/fields.py"}
    assert older_copies({"src/v3/types.ts", "src/v4/core/schemas.ts"}) == {"src/v3/types.ts"}
    assert older_copies({"api/v1/server.go", "api/handler.go"}) == set()  # a version folder alone is current
    candidates = [result("pydantic/v1/main.py", "BaseModel", 1.0, "class"), result("pydantic/main.py", "BaseModel", 0.8, "class")]
    assert order(restage("what", candidates, replace(OFF, reexport_weight=0.5)))[0] == "pydantic/main.py::BaseModel"


def test_code_in_a_folder_kept_for_old_callers_steps_back_unless_asked_for():
    settings = replace(OFF, reexport_weight=0.5)
    for folder in ("pydantic/deprecated", "fastapi/_compat", "lib/legacy"):
        def candidates():
            return [result(f"{folder}/decorator.py", "validate_arguments", 1.0), result("pydantic/validate_call.py", "validate_call", 0.8)]
        assert order(restage("how to validate a function's arguments", candidates(), settings))[0] == "pydantic/validate_call.py::validate_call"
        asked = folder.rsplit("/", 1)[-1].lstrip("_")
        assert order(restage(f"the {asked} way to validate arguments", candidates(), settings))[0] == f"{folder}/decorator.py::validate_arguments"
    compatible = [result("src/compatible/check.py", "check", 1.0), result("src/other.py", "check", 0.8)]  # not the folder's name
    assert order(restage("how arguments are checked", compatible, settings))[0] == "src/compatible/check.py::check"


def test_a_step_back_weighs_the_boosts_too():
    # the older copy defines the name as well: its boost is weighted as its score, or it wins
    candidates = [result("src/v3/types.ts", "ZodType", 1.0, "class"), result("src/v4/schemas.ts", "ZodType", 0.4, "class")]
    staged = restage("ZodType", candidates, replace(OFF, reexport_weight=0.5, definition_boost=3.0))
    assert order(staged)[0] == "src/v4/schemas.ts::ZodType"


def test_everything_off_keeps_the_fused_order():
    candidates = [result("a.py", "one", 1.0), result("a.py", "two", 0.9), result("pkg/__init__.py", "Router", 0.5)]
    assert order(restage("Router", candidates, OFF)) == ["a.py::one", "a.py::two", "pkg/__init__.py::Router"]


def test_a_one_word_or_qualified_question_has_a_name_channel():
    assert name_query("Router") == 'symbol : ("router")'
    assert name_query("Sinatra::Base") == 'symbol : ("base")'
    assert name_query("Serialize") == 'symbol : ("serialize")'
    assert name_query("how do I cancel an order twice in a row please") is None


def test_a_name_question_finds_its_definition_among_many_namesakes(tmp_path, monkeypatch):
    """`Serialize` asked in a repository where sixty methods are named `serialize` and one
    class `Serialize` defines the name: the name channel offers the exact name first, so the
    definition is a candidate however many namesakes crowd the word, and the stage lifts it."""
    from gittools import GitBuilder

    from branchwise.search.hybrid import SearchRequest
    from branchwise.workspace import Workspace

    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "serde")
    for n in range(60):
        git.write(f"impls/impl_{n}.py", f"class Kind{n}:\n    def serialize(self, serializer):\n"
                                        f"        serializer.serialize_value({n})\n        return serialize(self)\n")
    git.write("core/ser.py", "class Serialize:\n    \"\"\"A data structure that can be written out.\"\"\"\n\n"
                             "    def write(self, out):\n        raise NotImplementedError\n")
    git.commit("many namesakes")
    ws = Workspace(git.path, tmp_path / "index")
    ws.index(["main"])
    try:
        results = ws.search(SearchRequest("Serialize", "main", top_k=5))
        assert results[0].identity.qualified_name == "Serialize"
    finally:
        ws.close()
