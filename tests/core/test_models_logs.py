import logging

from toolkit.core.models import quiet_library_logs


def test_quiet_library_logs_silences_load_chatter():
    from transformers.utils import logging as hf_logging

    quiet_library_logs()
    assert logging.getLogger("bitsandbytes").getEffectiveLevel() == logging.ERROR
    assert logging.getLogger("bitsandbytes.backends.cpu.ops").getEffectiveLevel() == logging.ERROR
    assert not hf_logging.is_progress_bar_enabled()
    assert hf_logging.get_verbosity() == logging.ERROR
