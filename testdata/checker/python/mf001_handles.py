# MF001 through locals: a local that aliases an object which outlives the function (taken from an
# attribute, an element, a parameter or a call's result) is not exempt; one made here is.
# config: {"disabled_rules": ["MF004"], "mf001_min_belief_ratio": 0.2, "mf002_python": true}
import torch


class Stage:
    def __init__(self):
        self.activation = torch.zeros(4)

    def finish(self):
        return self.activation.sum()

    def _release_state(self):
        self.activation = None


class Pipeline:
    def __init__(self):
        self.stage = Stage()
        self.stages = [Stage(), Stage()]

    def teacher(self):
        self.stage.finish()
        self.stage._release_state()

    def alias_of_attribute(self):
        stage = self.stage
        stage.finish()  # expect: MF001{{'self.stage' keeps its device memory after 'finish'}}

    def alias_by_getattr(self):
        stage = getattr(self, "stage", None)
        if stage is not None:
            stage.finish()  # expect: MF001

    def released_through_alias(self):
        stage = self.stage
        stage.finish()
        stage._release_state()

    def element(self):
        for stage in self.stages:
            stage.finish()  # expect: MF001{{'stage' keeps its device memory}}

    def call_result(self):
        stage = self.current()
        stage.finish()  # expect: MF001

    def current(self):
        return self.stage

    def made_here(self):
        stage = Stage()
        stage.finish()

    def made_here_and_kept(self):
        stage = Stage()
        stage.finish()  # expect: MF001
        self.stages.append(stage)  # expect: MF002{{'stages' is assigned in 'Pipeline.made_here_and_kept'}}

    def made_here_and_returned(self):
        stage = Stage()
        stage.finish()  # expect: MF001
        return stage


def parameter(stage):
    stage.finish()  # expect: MF001{{in 'parameter'}}


def parameter_released(stage):
    stage.finish()
    stage._release_state()
