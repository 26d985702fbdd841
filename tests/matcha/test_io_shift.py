import numpy as np
import pytest
import scipy.sparse as sp
import torch

from toolkit.core.errors import InputError
from toolkit.matcha.csbm import generate_csbm
from toolkit.matcha.io import check_labels, graph_stats, load_graph, save_graph
from toolkit.matcha.shift import feature_shift, keep_edges, match_homophily


@pytest.fixture(scope="module")
def g():
    return generate_csbm(600, 30, 0.1, 0.0, 8, 0.6, seed=5)


def test_npz_round_trip_keeps_a_clean_symmetric_graph(tmp_path, g):
    p = save_graph(g, tmp_path / "g.npz")
    back = load_graph(p)
    assert np.array_equal(back.edge_index, g.edge_index) and np.array_equal(back.y, g.y)
    ei = back.edge_index
    assert (ei[0] != ei[1]).all()
    pairs = set(map(tuple, ei.T))
    assert all((j, i) in pairs for i, j in pairs) and len(pairs) == ei.shape[1]


def test_raw_edges_are_symmetrised_deduplicated_and_loop_free(tmp_path):
    np.savez(tmp_path / "r.npz", x=np.ones((4, 2), np.float32), edge_index=np.array([[0, 1, 1, 2, 3], [1, 0, 1, 3, 2]]))
    g = load_graph(tmp_path / "r.npz")
    assert g.edge_index.tolist() == [[0, 1, 2, 3], [1, 0, 3, 2]]
    assert graph_stats(g)["edges"] == 2


def test_h2gcn_sparse_npz_loads_without_pickle(tmp_path, g):
    und = g.undirected()
    adj = sp.csr_matrix((np.ones(und.shape[1]), (und[0], und[1])), shape=(600, 600))
    attr = sp.csr_matrix(g.x)
    np.savez(tmp_path / "syn.npz", adj_data=adj.data, adj_indices=adj.indices, adj_indptr=adj.indptr,
             adj_shape=adj.shape, attr_data=attr.data, attr_indices=attr.indices, attr_indptr=attr.indptr,
             attr_shape=attr.shape, labels=g.y, class_names=np.array(["a", {"b": 1}], dtype=object))
    back = load_graph(tmp_path / "syn.npz")
    assert np.array_equal(back.edge_index, g.edge_index) and np.allclose(back.x, g.x)


def test_pt_dict_loads_and_pickled_data_needs_allow_pickle(tmp_path, g):
    torch.save({"x": torch.as_tensor(g.x), "edge_index": torch.as_tensor(g.undirected()), "y": torch.as_tensor(g.y)},
               tmp_path / "g.pt")
    assert np.array_equal(load_graph(tmp_path / "g.pt").edge_index, g.edge_index)
    pyg = pytest.importorskip("torch_geometric.data")
    torch.save(pyg.Data(x=torch.as_tensor(g.x), edge_index=torch.as_tensor(g.edge_index), y=torch.as_tensor(g.y)),
               tmp_path / "d.pt")
    with pytest.raises(InputError, match="--allow-pickle"):
        load_graph(tmp_path / "d.pt")
    assert load_graph(tmp_path / "d.pt", allow_pickle=True).num_nodes == 600


@pytest.mark.parametrize("arrays, message", [
    ({"edge_index": np.zeros((2, 1), np.int64)}, "key 'x' is missing"),
    ({"x": np.ones((3, 2)), "edge_index": np.zeros((3, 1), np.int64)}, "integer \\[2, E\\]"),
    ({"x": np.ones((3, 2)), "edge_index": np.zeros((2, 1))}, "integer \\[2, E\\]"),
    ({"x": np.ones((3, 2)), "edge_index": np.array([[0, 1, 2], [1, 5, 0]])}, "column 1 \\(1, 5\\)"),
    ({"x": np.array([[1.0, np.nan], [0, 0]]), "edge_index": np.zeros((2, 0), np.int64)}, "non-finite.*node 0"),
    ({"x": np.ones((2, 2)), "edge_index": np.zeros((2, 0), np.int64), "y": np.array([0, -1])}, "negative"),
])
def test_malformed_npz_names_file_and_key(tmp_path, arrays, message):
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(InputError, match=message) as err:
        load_graph(tmp_path / "bad.npz")
    assert "bad.npz" in str(err.value)


def test_labels_outside_the_models_classes(g):
    g2 = generate_csbm(10, 2, seed=0)
    g2.y[3] = 2
    with pytest.raises(InputError, match="label 2 at node 3, outside 0..1"):
        check_labels(g2, 2, "t.npz")


@pytest.mark.parametrize("target", [0.2, 0.45, 0.9])
def test_homophily_matching_lands_within_a_hundredth(g, target):
    out = match_homophily(g, target, seed=42)
    assert abs(graph_stats(out)["edge_homophily"] - target) <= 0.01
    assert set(map(tuple, out.undirected().T)) <= set(map(tuple, g.undirected().T))


def test_unreachable_or_invalid_homophily(g):
    with pytest.raises(InputError, match="must lie in"):
        match_homophily(g, 1.5)
    only_homo = g.with_edges(g.undirected()[:, g.y[g.undirected()[0]] == g.y[g.undirected()[1]]])
    with pytest.raises(InputError, match="unreachable"):
        match_homophily(only_homo, 0.3)


def test_keep_edges_and_feature_shift(g):
    assert graph_stats(keep_edges(g, 0.3))["edges"] == round(0.3 * graph_stats(g)["edges"])
    assert np.allclose(feature_shift(g, 0.02).x - g.x, 0.02 / np.sqrt(30), atol=1e-6)


def test_bad_generator_options():
    from toolkit.matcha.bench import make_pair, parse_settings, parse_ttas

    with pytest.raises(InputError, match="--degree 10"):
        generate_csbm(10, 2, d=10)
    with pytest.raises(InputError, match="--homophily 1.2"):
        generate_csbm(10, 2, h=1.2)
    with pytest.raises(InputError, match="unknown setting"):
        make_pair("sideways", 0, 10, 2)
    with pytest.raises(InputError, match="unknown setting"):
        parse_settings("homo2hetero,sideways")
    with pytest.raises(InputError, match="unknown base TTA"):
        parse_ttas("erm,sgd")
    assert parse_settings("all")[:2] == ["homo2hetero", "homo2hetero-attr"]
