"""superpos: predict the structure of the formula behind a data set."""
from .basis import Basis, BasisFunction, register_function
from .corpus import Corpus, generate_corpus, write_corpus
from .exceptions import SuperposError
from .features import DatasetFeatures, write_features
from .predictor import StructurePredictor
from .regressor import SuperposRegressor

__version__ = "0.1.0"

__all__ = ["Basis", "BasisFunction", "Corpus", "DatasetFeatures", "StructurePredictor", "SuperposError", "SuperposRegressor",
           "generate_corpus", "register_function", "write_corpus", "write_features", "__version__"]
