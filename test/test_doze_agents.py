"""DOZE agents: goal text, attributes from pixels, hints, OCR of every whiteboard, MiniLM,
and every agent on every level."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hazard_sim.agents import agents_for, make_agent
from hazard_sim.render.camera import CameraSpec
from hazard_sim.runner import make_env
from hazard_sim.tasks.doze.appearance import attribute_ok, color_name, two_tone
from hazard_sim.tasks.doze.goal_language import Goal, parse_hint
from hazard_sim.tasks.doze.ocr import ocr_text
from hazard_sim.tasks.doze.scenes import SCENES, build_house
from hazard_sim.tasks.doze.vocabulary import COLORS


def test_goal_text_is_parsed_against_seen_labels():
    g = Goal("a red mug")
    assert not g.match_label("cup") and g.match_label("mug") and g.attribute == "red"
    g = Goal("a basketball under the side table")
    assert g.relation == ("under", "side table") and g.match_label("basketball") and g.attribute is None
    g = Goal("Tony's baseball bat")
    assert g.owner == "Tony" and g.match_label("baseball bat")
    g = Goal("a ZUMO cereal box")
    assert g.brand == "ZUMO" and g.match_label("cereal box")
    g = Goal("a stone lion statue")
    assert g.match_label("stone lion statue") and g.attribute is None


def test_goal_class_is_the_thing_the_goal_text_names():
    from hazard_sim.tasks.doze.goal_language import goal_class
    assert goal_class("a yellow watering can") == "watering can"
    assert goal_class("a pillow on the sofa") == "pillow"
    assert goal_class("a basketball under the side table") == "basketball"
    assert goal_class("Tony's helmet") == "helmet"
    assert goal_class("a ZUMO cereal box") == "cereal box"
    assert goal_class("a stone lion statue") == "stone lion statue"
    assert goal_class("a striped cushion") == "cushion"
    # outside the library's vocabulary: the phrase without its attribute words
    assert goal_class("a red fire truck", vocabulary=["mug"]) == "fire truck"
    with pytest.raises(ValueError, match="non-empty"):
        goal_class("  ")


@pytest.mark.parametrize("name", ["red", "blue", "yellow", "green", "white", "black"])
def test_colours_are_named_from_shaded_pixels(name):
    rgb = np.asarray(COLORS[name], float)
    shades = np.linspace(0.5, 1.0, 40)[:, None]
    px = np.clip(rgb * shades, 0, 255).astype(np.uint8)
    assert color_name(px)[0][1] == name
    assert attribute_ok(name, px) is True
    other = "blue" if name != "blue" else "red"
    assert attribute_ok(other, px) is False


def test_patterns_and_brands():
    stripes = np.array([[240, 240, 240]] * 20 + [[200, 40, 40]] * 20, np.uint8)
    assert two_tone(stripes) and attribute_ok("striped", stripes)
    assert not two_tone(np.array([[200, 40, 40]] * 40, np.uint8))
    assert attribute_ok("ZUMO", stripes) is None          # a brand: pixels cannot decide


def test_hint_notes_are_parsed_even_with_ocr_slips():
    assert parse_hint("Tony, your baseball bat is under the bed.") == ("Tony", "baseball bat", "under", "bed")
    assert parse_hint("ny, your helmet is Ider the side table.", ["side table", "sofa"]) == \
        ("ny", "helmet", "under", "side table")
    assert parse_hint("Buy milk, eggs and fresh bread.") is None


def test_ocr_reads_every_whiteboard_from_a_frontal_view():
    """Every board of the dataset, from 1 m in front, through the robot's 256 x 256 camera."""
    from test_doze import episode

    from hazard_sim.core.env import EmbodiedEnv
    missed = []
    n = 0
    for scene in SCENES:
        house = build_house(scene)
        env = EmbodiedEnv("doze/level1", episode_spec=episode(scene=scene), camera=CameraSpec(256, 256))
        env.reset()
        for b in house.boards:
            env.agent.xy = b.center[:2] + b.normal * 1.0
            env.agent.yaw = math.atan2(-b.normal[1], -b.normal[0])
            env.agent.spec = env.agent.spec.__class__(horizon_deg=0.0)
            obs = env.observe(update_map=False)
            rows, cols = np.nonzero(obs["seg"] == b.id)          # the board's part of the frame
            crop = obs["rgb"][max(rows.min() - 24, 0):rows.max() + 25, max(cols.min() - 24, 0):cols.max() + 25]
            text = ocr_text(crop).lower().replace(" ", "")         # OCR may drop the spaces between words
            words = [w.strip(".,!") for w in " ".join(b.lines).lower().split()]
            n += 1
            if sum(w in text for w in words) < 0.85 * len(words):
                missed.append((scene, b.lines, text))
        env.close()
    assert n >= 35 and not missed, missed


def test_minilm_in_numpy_matches_sentence_transformers():
    """Against embeddings sentence-transformers gave for the same model (data/doze/minilm_reference.json;
    torch is not imported here: it must not load after an OpenGL context exists)."""
    import json
    from pathlib import Path

    from hazard_sim.tasks.doze.minilm import model
    ref = json.loads((Path(__file__).resolve().parents[1] / "data" / "doze" / "minilm_reference.json").read_text())
    a = model().encode(ref["sentences"])
    assert np.abs(a - np.array(ref["embeddings"])).max() < 1e-4
    assert a[2] @ a[1] > a[0] @ a[1]          # a mug relates more to a kitchen than to a bedroom


@pytest.mark.parametrize("level", [1, 2, 3])
def test_every_agent_runs_on_every_level(level):
    names = sorted(agents_for(f"doze/level{level}"))
    assert names == ["c_l3mvn", "frontier", "h_l3mvn", "l3mvn", "random"]
    for name in names:
        w = make_env(f"doze/level{level}", "test", 3 * level, camera=CameraSpec(64, 64))
        env = w.unwrapped
        obs, info = w.reset()
        agent = make_agent(name, seed=0, benchmark=env.benchmark)
        agent.reset(obs, info)
        for _ in range(16):                        # past the first look-around: a global goal is chosen
            a = agent.act(obs, info)
            assert a in ("MoveAhead", "RotateLeft", "RotateRight", "Done")
            obs, _, term, trunc, info = w.step(a)
            if term or trunc:
                break
        m = env.metrics()
        assert m["steps"] >= 1 and m["level"] == level
        env.close()


def _agent_at_counter(pose_xy, yaw=math.pi / 2):
    """A frontier agent that has mapped a 5 m room with a 0.6 m deep counter (y 2.0-2.6, x 1-4) against a wall
    and recognised its goal at the counter's back (2.5, 2.45): no free cell of its map (obstacles
    grown 0.2 m) lies within 0.65 m of it, but some lie within 0.85 m."""
    from hazard_sim.navigation.grid import GridSpec
    from hazard_sim.tasks.doze import search
    agent = make_agent("frontier", benchmark="doze/level1")
    agent.grid = GridSpec((0.0, 0.0, 5.0, 5.0), search.CELL)
    c = agent.grid.centres()
    agent.obst = ((c[..., 1] >= 2.0) & (c[..., 0] >= 1.0) & (c[..., 0] <= 4.0)) | (c[..., 1] >= 2.6)   # + the wall
    agent.free = ~agent.obst
    h, w = agent.grid.shape
    agent.person_area = np.zeros((h, w), bool)
    agent.person_seen_at = np.full((h, w), -10 ** 6)
    agent.person_recent, agent.rejected = [], set()
    agent.person_tracks, agent.person_avoid, agent.waited = {}, {}, 0
    agent.t, agent.look_around, agent.global_goal = 40, 1, None
    agent.pose = np.array([pose_xy[0], pose_xy[1], yaw])
    agent.target, agent.target_id = np.array([2.5, 2.45]), 7
    agent.bumped, agent.target_bumps = False, 0
    agent.goal, agent.hint = Goal("mug"), None
    return agent


def test_a_goal_at_the_back_of_furniture_is_approached_from_the_wider_ring():
    from hazard_sim.tasks.doze import search
    agent = _agent_at_counter((2.55, 0.55))
    assert agent._cells_near(agent.target, search.APPROACH_RADII[0]) == []     # the near ring is all furniture
    assert agent._decide() == "MoveAhead"            # towards the counter, not given up
    assert agent.target is not None and not agent.rejected


def test_done_where_the_furniture_stops_the_robot_within_success_distance():
    agent = _agent_at_counter((2.5, 1.55))           # 0.9 m from the goal, against the counter's growth
    agent.bumped = True
    assert agent._decide() == "Done"
    far = _agent_at_counter((2.5, 1.3))              # 1.15 m: a blocked move is no reason to stop there
    far.bumped = True
    assert far._decide() != "Done" and far.target is not None


def test_a_goal_the_robot_keeps_bumping_short_of_is_given_up():
    agent = _agent_at_counter((2.5, 1.3))
    agent.bumped, agent.target_bumps = True, 7       # the eighth blocked move on the way
    assert agent._decide() == "RotateLeft"           # given up: looks around for another instance
    assert agent.target is None and agent.rejected == {7} and agent.target_bumps == 0


def test_a_people_aware_agent_stops_where_a_bystander_stands_between_it_and_the_goal():
    """Level 1 puts people beside the goal: a people-aware agent that would step into one within
    1 m of the goal says Done there instead of turning away and back for the rest of the episode."""
    agent = _agent_at_counter((2.55, 1.6))                # 0.85 m from the goal, facing it
    agent.people_aware = True
    agent.person_recent = [(agent.t, np.array([2.55, 1.95]))]     # a person 0.35 m ahead
    agent._cells_near = lambda xy, r, clearance=None: [agent.grid.to_cell((2.55, 1.75))]   # the cell beyond it
    assert agent._decide() == "Done"
    far = _agent_at_counter((2.55, 1.2))                  # 1.25 m away: keep out of the person's way
    far.people_aware = True
    far.person_recent = [(far.t, np.array([2.55, 1.6]))]
    assert far._decide() in ("RotateLeft", "RotateRight")


def test_a_goal_between_two_bystanders_is_approached_keeping_only_the_bodies_apart(monkeypatch):
    """Level 1's two bystanders stand 0.5-1.1 m from the goal: when their 0.65 m clearance covers every
    approach cell, a people-aware agent squeezes between them (0.45 m: the bodies stay apart) instead
    of giving the goal up for the rest of the episode."""
    from hazard_sim.tasks.doze import search

    def agent_with_bystanders():
        agent = _agent_at_counter((2.5, 0.5))              # 1.95 m in front of the goal, facing it
        agent.people_aware = True
        agent.person_tracks = {1: [np.array([2.0, 1.6])] * 2 + [30, 40],       # both standing for 10 steps, 1 m apart
                               2: [np.array([3.0, 1.6])] * 2 + [30, 40]}
        return agent

    agent = agent_with_bystanders()
    assert all(agent._cells_near(agent.target, r) == [] for r in search.APPROACH_RADII)   # all within 0.65 m
    a = agent._decide()
    assert a == "MoveAhead" and agent.target is not None and not agent.rejected
    cells = agent._cells_near(agent.target, search.APPROACH_RADII[1], search.SQUEEZE_CLEARANCE)
    path = agent._path_to(cells, field=agent._dist_field(agent._cost(search.SQUEEZE_CLEARANCE)))
    for q in ([2.0, 1.6], [3.0, 1.6]):
        assert min(np.linalg.norm(p - q) for p in path) > search.SQUEEZE_CLEARANCE
    monkeypatch.setattr(search, "SQUEEZE_CLEARANCE", search.PERSON_CLEARANCE)    # no squeezing: given up
    agent = agent_with_bystanders()
    assert agent._decide() == "RotateLeft" and agent.rejected == {7}


def test_hint_notes_as_ocr_reads_them_on_the_robots_crops():
    """Texts RapidOCR gave for the level-1 hint boards: "the" / "is" misread or run into the next word."""
    furniture = ["bed", "bookshelf", "shelf", "side table", "basket"]
    assert parse_hint("kate,your skateboard is under :he bed.", furniture) == ("kate", "skateboard", "under", "bed")
    assert parse_hint("Kate, your skateboardls uncer the bed.", furniture) == ("Kate", "skateboard", "under", "bed")
    assert parse_hint("Lena, your headphones is in Ihe shelf.", furniture) == ("Lena", "headphones", "in", "shelf")
    assert parse_hint("Lena, your haadphones is in he shelf.") == ("Lena", "haadphones", "in", "shelf")
    assert parse_hint("Lena your read phones is in theshelf.") == ("Lena", "read phones", "in", "shelf")
    assert parse_hint("Zce your guitar is next to the shelf.") == ("Zce", "guitar", "next to", "shelf")
    # level-1 test episode 290's board, read twice (it was never followed before): "is" run into the
    # relation, and "the" misread past recognition
    assert parse_hint("Kate, your skateboard isunder the bed.", furniture) == ("Kate", "skateboard", "under", "bed")
    assert parse_hint("Kate, your skateboard is urdar Ltic bed.", furniture) == ("Kate", "skateboard", "under", "bed")
    assert parse_hint("Kate, your skateboard island the bed.", furniture) is None      # "land": no relation
    # a furniture word close to none of the known names ("ba)": bed 0.4, basket 0.5): not read
    assert parse_hint("Kate, your skateboard is unve the ba).", furniture) is None
    assert parse_hint("Kate, your skateboard is unve the ba).") == ("Kate", "skateboard", "under", "ba")
    # level-1 test episode 612's board, read from 0.7 m: "your" run into the thing's name
    assert parse_hint("Bevi yourumbrella is under the bed.", furniture) == ("Bevi", "umbrella", "under", "bed")
    # episode 610's board from 1.3 m: "your" read as "youf"
    assert parse_hint("Lenia, youf headphones is in ihe shelf.", furniture) == ("Lenia", "headphones", "in", "shelf")
    # level-1 test episode 289's board (doze_08), read from 1 m: "is" and "the" both run into the next word;
    # "thebed" is as close to "the" as a misread "the" is, and was taken for one (the note was never read)
    assert parse_hint("Kate,your skateboard isunder thebed.", furniture) == ("Kate", "skateboard", "under", "bed")
    assert parse_hint("Tony, your helmet is under thedesk.", ["desk"]) == ("Tony", "helmet", "under", "desk")
    for note in ("Water the plants every Monday.", "Call the plumber about the sink.",
                 "Team meeting on Friday at 3 pm."):
        assert parse_hint(note, furniture) is None


def test_a_note_read_cleanly_is_read_and_a_hint_misread_is_not():
    from hazard_sim.tasks.doze.agents import plain_note
    for note in ("Water the plants every Monday.", "Buy milk, eggs and fresh bread.",
                 "Recycling goes out on Tuesday.", "Call the plumbsr about the sink."):
        assert plain_note(note), note
    for text in ("Buymik enos snd.es7t1899.", "my kmrdio", "Buy mllk, eggs", "Water the pant: every Mondey.",
                 "Kate, your skateboard is under the bed.", "Kate, yoat skateboard is under the bed.",
                 "os yaur guitar is te the shelf.", "Kate, you skateboard is under the bed."):
        assert not plain_note(text), text


def test_a_hints_furniture_is_the_piece_it_names_not_a_longer_one_seen_first():
    """"shelf" is 0.71 like "bookshelf" (difflib): a named piece is kept, a misread one is corrected."""
    assert parse_hint("Zoe, your guitar is next to the shelf.", ["bookshelf", "shelf", "sofa"])[3] == "shelf"
    assert parse_hint("Zoe, your guitar is next to the shelt.", ["bookshelf", "shelf", "sofa"])[3] == "shelf"
    assert parse_hint("Tony, your bat is under the bod.", ["bed", "bookshelf"])[3] == "bed"
    from hazard_sim.tasks.doze.agents import FURNITURE_NAMES
    assert {"shelf", "bookshelf", "bed", "side table"} <= set(FURNITURE_NAMES)


def _board_agent():
    """An h_l3mvn in a 6 m x 6 m room with a whiteboard seen on the wall x = 0, centre (0.05, 3.0)."""
    from hazard_sim.navigation.grid import GridSpec
    from hazard_sim.tasks.doze.search import Instance
    agent = make_agent("h_l3mvn", benchmark="doze/level1")
    agent.grid = GridSpec((0.0, 0.0, 6.0, 6.0), 0.1)
    agent.free = np.ones(agent.grid.shape, bool)
    agent.obst = np.zeros(agent.grid.shape, bool)
    agent.person_seen_at = np.full(agent.grid.shape, -10 ** 6)
    agent.person_area = np.zeros(agent.grid.shape, bool)
    agent.person_recent, agent.t, agent.hint = [], 30, None
    agent.person_tracks, agent.person_avoid, agent.waited = {}, {}, 0
    agent.boards_ok, agent.board_tries, agent.board_visits = set(), {}, {}
    agent.pose = np.array([4.0, 3.0, 0.0])
    board = Instance(9, "whiteboard")
    board.lo, board.hi = np.array([0.04, 2.4, 0.65]), np.array([0.06, 3.6, 1.45])
    agent.inst = {9: board}
    return agent


def test_a_board_is_read_from_a_reachable_spot_and_given_up_when_none_is_reached():
    agent = _board_agent()
    _, dist = agent._dist_field(agent._cost())
    spot, centre = agent._unread_board(dist)
    assert np.allclose(spot, [1.05, 3.0]) and np.allclose(centre, [0.05, 3.0])   # 1.0 m in front
    agent.obst[30:32, 9:12] = True            # a stool 1 m in front (x 0.9..1.2, y 3.0..3.2; rows are y)
    agent.board_visits = {}
    _, dist = agent._dist_field(agent._cost())
    spot, _ = agent._unread_board(dist)
    assert np.allclose(spot, [1.05, 2.7])     # 1 m off the wall, 0.3 m to the side of the stool's growth
    agent.obst[29:32, 9:12] = True            # longer (y 2.9..3.2): its growth covers both sides
    agent.board_visits = {}
    _, dist = agent._dist_field(agent._cost())
    spot, _ = agent._unread_board(dist)
    assert np.allclose(spot, [1.45, 3.0])     # 1.4 m straight on, not 2 m, where OCR reads nothing
    agent.obst[28:33, 8:13] = True            # a table (x 0.8..1.3, y 2.8..3.3): no place to read from
    agent.board_visits = {}
    _, dist = agent._dist_field(agent._cost())
    assert agent._unread_board(dist) is None
    agent.obst[28:33, 8:13] = False
    dist[:] = np.inf                          # nowhere in front of it can be reached: not a goal
    dist[agent.grid.to_cell(agent.pose[:2])] = 0.0
    agent.board_visits = {}
    assert agent._unread_board(dist) is None
    _, dist = agent._dist_field(agent._cost())
    assert agent._unread_board(dist) is not None and agent._unread_board(dist) is not None
    assert agent.board_visits == {9: 2} and agent._unread_board(dist) is None    # two focus periods, no third


def test_the_nearest_board_is_read_first():
    from hazard_sim.tasks.doze.search import Instance
    agent = _board_agent()
    near = Instance(10, "whiteboard")              # on the wall x = 6, 1 m behind the robot at x 4
    near.lo, near.hi = np.array([5.94, 2.4, 0.65]), np.array([5.96, 3.6, 1.45])
    agent.inst = {**agent.inst, 10: near}
    _, dist = agent._dist_field(agent._cost())
    spot, centre = agent._unread_board(dist)
    assert np.allclose(centre, [5.95, 3.0]) and agent.board_bid == 10
    assert 1.0 <= 5.95 - spot[0] <= 1.45 and abs(spot[1] - 3.0) <= 0.3 + 1e-9


def test_a_boards_reading_place_follows_its_estimate_within_one_focus_period():
    agent = _board_agent()
    agent.goal = Goal("Kate's skateboard")
    cost = agent._cost()
    _, dist = agent._dist_field(cost)
    spot = agent.choose_global_goal(cost, dist)
    assert np.allclose(agent.board_focus, [0.05, 3.0]) and abs(spot[1] - 3.0) <= 0.3 + 1e-9
    board = agent.inst[9]                          # seen whole now: its middle is 0.6 m further along
    board.lo, board.hi = board.lo + [0, 0.6, 0], board.hi + [0, 0.6, 0]
    spot = agent.choose_global_goal(cost, dist)
    assert np.allclose(agent.board_focus, [0.05, 3.6]) and abs(spot[1] - 3.6) <= 0.3 + 1e-9
    assert agent.board_visits == {9: 1}


def test_a_board_not_read_from_its_reading_place_is_left_after_three_views():
    """Facing the board from its reading place without a single try (never seen whole from there,
    e.g. from a place the robot could only get near): three views, then on, not a 60-step wait."""
    from hazard_sim.tasks.doze.agents import FACE_VIEWS
    agent = _board_agent()
    agent.goal, agent.target, agent.look_around = Goal("Kate's skateboard"), None, 0
    agent.rejected, agent.last_action, agent.bumped, agent.goal_set_at = set(), None, False, agent.t
    cost = agent._cost()
    _, dist = agent._dist_field(cost)
    agent.board_spot, agent.board_focus = agent._unread_board(dist)
    agent.board_since, agent.board_faced = agent.t, 0
    agent.pose = np.array([*agent.board_spot, math.pi])    # there, facing the board
    turns = [agent._decide() for _ in range(FACE_VIEWS)]
    assert all(t.startswith("Rotate") for t in turns)    # small turns about the board, for other views
    assert agent.board_focus is not None
    agent._decide()
    assert agent.board_focus is None and agent.board_visits == {9: 1}


def test_a_board_is_read_only_from_near_and_in_front_and_counts_as_read_from_its_best_place(monkeypatch):
    """RapidOCR reads 38 of 39 boards from 1 m at up to 20 degrees off the front, none at 35 degrees
    or from 2 m (bench_doze.py ocr): views from there are not read at all."""
    from hazard_sim.tasks.doze import agents as doze_agents
    reads = []
    monkeypatch.setattr(doze_agents, "ocr_text", lambda crop: reads.append(crop.shape) or "my kmrdio")
    agent = _board_agent()                         # the board's middle at (0.05, 3.0), its front +x
    agent.board_texts, agent.goal = {}, Goal("Kate's skateboard")
    seg = np.zeros((256, 256), np.int32)
    seg[80:180, 50:200] = 9                        # seen whole, 150 px wide
    obs = {"seg": seg, "rgb": np.zeros((256, 256, 3), np.uint8)}

    def view(x, y):
        agent.t += 30
        agent.pose = np.array([x, y, math.pi])
        agent.inst[9].last = agent.t
        agent._read_boards(obs)

    view(1.0, 3.9)                                 # 43 degrees off its front
    view(2.2, 3.0)                                 # 2.15 m away
    assert reads == [] and agent.board_tries == {}
    view(1.3, 3.3)                                 # 1.29 m, 14 degrees: read, but not from its best place
    assert len(reads) == 1 and agent.boards_ok == set()
    view(1.05, 3.0)                                # 1 m straight in front: what it says is what it holds
    assert len(reads) == 2 and agent.boards_ok == {9}


def test_a_thing_under_a_piece_is_approached_from_just_inside_success_distance():
    from hazard_sim.tasks.doze import search
    agent = _board_agent()
    agent.goal = Goal("Kate's skateboard")
    assert agent._approach_radii() == search.APPROACH_RADII
    agent.hint = ("under", "bed")
    assert agent._approach_radii() == (*search.APPROACH_RADII, search.FAR_DONE - 0.05)
    agent.hint = ("next to", "bed")
    assert agent._approach_radii() == search.APPROACH_RADII
    agent.hint, agent.goal = None, Goal("sneaker under the bed")
    assert agent._approach_radii()[-1] == search.FAR_DONE - 0.05


def test_a_thing_under_a_piece_is_looked_for_from_past_its_edge_and_h_l3mvn_is_l3mvn_with_hints():
    """Under a bed frame a thing shows only from 1.3-2.0 m off the footprint, from new places each
    time; for on / in / next to the places stay within 1 m of the piece's centre. H-L3MVN is the
    paper's L3MVN with hints: it does not keep away from people (C-L3MVN does)."""
    from hazard_sim.tasks.doze.search import Instance
    agent = _board_agent()
    assert not agent.people_aware and agent.name == "h_l3mvn"
    bed = Instance(5, "bed")
    bed.lo, bed.hi = np.array([2.0, 2.0, 0.24]), np.array([3.6, 4.0, 0.3])
    agent.hint, agent.hint_looked = ("under", "bed"), []
    spots = {tuple(np.round(agent.grid.to_world(c), 2)) for c in agent._hint_spots(bed)}
    assert (0.55, 3.05) in spots and (1.05, 3.05) not in spots and (5.25, 3.05) in spots   # 1.45, 0.95, 1.65 m
    assert (2.85, 0.35) in spots and (2.85, 5.95) in spots and (2.85, 1.05) not in spots  # 1.65, 1.95, 0.95 m
    agent.hint_looked = [np.array([0.55, 3.05])]
    again = {tuple(np.round(agent.grid.to_world(c), 2)) for c in agent._hint_spots(bed)}
    assert (0.55, 3.05) not in again and (0.55, 3.85) not in again and (0.55, 4.35) in again and (5.25, 3.05) in again
    agent.hint = ("in", "bed")
    near = [agent.grid.to_world(c) for c in agent._hint_spots(bed)]
    assert near and max(np.linalg.norm(np.array(p) - [2.8, 3.0]) for p in near) <= 1.0 + 1e-9


def _people_agent(name="c_l3mvn"):
    """An agent in a 6 m x 6 m empty room at (1.0, 3.0) facing +x (yaw 0), step 30, nobody seen yet."""
    from hazard_sim.navigation.grid import GridSpec
    agent = make_agent(name, benchmark="doze/level1")
    agent.grid = GridSpec((0.0, 0.0, 6.0, 6.0), 0.1)
    agent.free = np.ones(agent.grid.shape, bool)
    agent.obst = np.zeros(agent.grid.shape, bool)
    agent.person_seen_at = np.full(agent.grid.shape, -10 ** 6)
    agent.person_area = np.zeros(agent.grid.shape, bool)
    agent.person_recent, agent.person_tracks, agent.person_avoid = [], {}, {}
    agent.t, agent.waited, agent.global_goal = 30, 0, None
    agent.pose = np.array([1.0, 3.0, 0.0])
    agent.goal, agent.hint = Goal("mug"), None
    return agent


def _see(agent, xy, pid=900):
    """The agent's step: it sees person ``pid`` with its centre at ``xy``."""
    xy = np.asarray(xy, float)
    agent.person_recent = [(agent.t, xy)]
    agent._track_person(pid, xy)


def test_a_person_who_stays_put_is_an_obstacle_to_plan_around_not_a_person_to_wait_for():
    """Level 1's people never move: after 3 steps at one place (within 0.3 m) a person is planned around
    with a 0.65 m clearance (a collision is 0.61 m between centres) instead of waited for."""
    agent = _people_agent()
    near, margin, open_ = (30, 25), (30, 27), (30, 31)      # cell centres 0.55, 0.75 and 1.15 m from the person
    _see(agent, (2.0, 3.0))                                   # t 30: first seen, 1.0 m ahead
    assert agent._standing() == []
    assert agent._guarded("MoveAhead") == "RotateLeft"        # moving, as far as the robot knows: wait
    cost = agent._cost()
    assert np.isfinite(cost[near]) and cost[near] == 60.0   # the forbidden zone (7 cells around it)
    for t, jitter in ((31, (2.2, 3.0)), (32, (2.0, 2.85)), (33, (2.1, 3.0))):   # the view shifts its centre
        agent.t = t
        _see(agent, jitter)
    assert len(agent._standing()) == 1 and np.allclose(agent._standing()[0], [2.0, 3.0])   # the first place
    cost = agent._cost()
    assert cost[near] == np.inf and cost[margin] == 6.0 and cost[open_] == 1.0
    assert agent._guarded("MoveAhead") == "MoveAhead" and agent.waited == 0   # not waited for
    path = agent._path_to([agent.grid.to_cell((3.5, 3.0))])  # to the far side: around the person
    assert path is not None
    assert min(np.linalg.norm(p - [2.0, 3.0]) for p in path) > 0.65
    agent.t = 34
    _see(agent, (2.5, 3.0))                                   # 0.5 m on: walking again
    assert agent._standing() == [] and agent._cost()[near] == 60.0


def test_waiting_for_a_moving_person_is_bounded():
    """A person moving about ahead (0.4 m a step, never 3 steps in one place) is waited for (turning away
    and back) for 6 steps; then they are an obstacle to plan around for 12 steps, wherever they are seen,
    and the robot goes on: no wait lasts for ever."""
    agent = _people_agent()
    agent.global_goal = np.array([5.0, 3.0])
    pacing = [(1.8, 2.8), (1.8, 3.2)]
    turns = []
    for k in range(6):
        agent.t = 30 + k
        _see(agent, pacing[k % 2])
        assert agent._standing() == []
        turns.append(agent._guarded("MoveAhead"))
    assert turns == ["RotateLeft", "RotateRight"] * 3 and agent.waited == 6    # back to the heading each time
    agent.t = 36
    _see(agent, pacing[0])
    assert agent._guarded("MoveAhead") == "RotateRight"      # the 7th: plan around them from now on
    assert agent.waited == 0 and agent.global_goal is None and agent.person_avoid == {900: 36}
    assert agent._cost()[agent.grid.to_cell((1.8, 2.8))] == np.inf
    agent.t = 37
    _see(agent, pacing[1])                                    # moved on: planned around where they are now
    assert agent._guarded("MoveAhead") == "MoveAhead"
    assert agent._cost()[agent.grid.to_cell((1.8, 3.2))] == np.inf
    assert np.isfinite(agent._cost()[agent.grid.to_cell((1.8, 2.5))])          # 0.7 m from them now
    agent.t = 36 + 13                                         # 13 steps after: waited for again
    _see(agent, pacing[0])
    assert agent._standing() == [] and agent._guarded("MoveAhead") == "RotateLeft"


def test_agents_that_ignore_people_are_untouched_by_the_people_rules():
    agent = _people_agent("l3mvn")
    for t in range(30, 35):
        agent.t = t
        _see(agent, (2.0, 3.0))
    assert agent._guarded("MoveAhead") == "MoveAhead" and agent.waited == 0
    assert np.all(agent._cost() == 1.0) and not agent._blocked().any()


def test_instance_label_is_the_one_with_most_pixels_behind_it():
    """A detector may name one object differently from view to view: the remembered label is
    the one seen over the most pixels (ground truth never changes it)."""
    from hazard_sim.tasks.doze.search import Instance
    inst = Instance(7, "object")
    inst.vote("object", 12)                 # far away: the namer was unsure
    assert inst.label == "object"
    inst.vote("cereal box", 30)             # nearer: named
    assert inst.label == "cereal box"
    inst.vote("tissue box", 20)             # one wrong view does not undo it
    assert inst.label == "cereal box" and inst.votes == {"object": 12, "cereal box": 30, "tissue box": 20}
    inst.vote("tissue box", 11)             # 31 > 30
    assert inst.label == "tissue box"
    gt = Instance(8, "mug")
    for _ in range(3):
        gt.vote("mug", 5)
    assert gt.label == "mug" and gt.votes == {"mug": 15}
